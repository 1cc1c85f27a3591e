import { describe, expect, it } from "vitest";
import { z } from "zod";
import { KeyIssueRequestSchema } from "../../../pipeline/domain/key-request.ts";
import { PyFloat, pyJson } from "../../../server/validation/py-json.ts";
import { validateRequest } from "../../../server/validation/request.ts";
import { FASTAPI_ECHO_CASES } from "./fastapi-echo-cases.ts";

function post(body: string): Request {
  return new Request("http://test/v1/keys", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
}

async function answer(body: string, schema: z.ZodType = KeyIssueRequestSchema): Promise<string> {
  const result = await validateRequest(post(body), { body: schema });
  return result.ok ? `ok ${JSON.stringify(result.value.body)}` : `${result.status} ${result.body}`;
}

describe("422 answers echo the input as FastAPI writes it (generated with CPython's json)", () => {
  it.each(FASTAPI_ECHO_CASES)("%s", async (body, expected) => {
    expect(await answer(body)).toBe(`422 ${expected}`);
  });
});

describe("numbers keep the type and digits their JSON text gives them", () => {
  it.each([
    ["1.0", "1.0"],
    ["-0.0", "-0.0"],
    ["1e2", "100.0"],
    ["1e16", "1e+16"],
    ["1e-5", "1e-05"],
    ["9007199254740993", "9007199254740993"],
    ["123456789012345678901234567890", "123456789012345678901234567890"],
  ])("a body of %s is echoed as %s", async (body, echoed) => {
    expect(await answer(body)).toContain(`"input":${echoed}}`);
  });

  it("writes an infinite float as null, where FastAPI fails to encode it (a 500)", async () => {
    expect(await answer('{"email": 1e400, "label": -Infinity}')).toBe(
      '422 {"detail":[{"type":"string_type","loc":["body","email"],"msg":"Input should be a valid string","input":null},' +
        '{"type":"string_type","loc":["body","label"],"msg":"Input should be a valid string","input":null}]}',
    );
  });

  it("answers 400 to an integer of more than 4300 digits, as json.loads raises ValueError", async () => {
    const digits = "1".repeat(4301);
    expect(await answer(`{"email": ${digits}}`)).toBe('400 {"detail":"There was an error parsing the body"}');
    expect(await answer(`{"email": "abc", "label": "x", "n": [-${digits}]}`)).toBe(
      '400 {"detail":"There was an error parsing the body"}',
    );
    expect(await answer(`{"email": ${"1".repeat(4300)}, "label": "x"}`)).toMatch(/^422 .*"input":1{4300}}/);
    // As a float it is only large: float() has no digit limit.
    expect(await answer(`{"email": ${digits}.0, "label": "x"}`)).toContain('"input":null');
  });

  it("validates a valid body once, at JSON.parse speed, and hands on plain values", async () => {
    expect(await answer('{"email": "abc@d.e", "label": "x", "2": 1.0, "1": 1e400}')).toBe(
      'ok {"email":"abc@d.e","label":"x"}',
    );
  });
});

describe("numbers past 2**53 and whole floats in numeric and boolean fields", () => {
  const Counts = z.object({
    n: z
      .int()
      .max(9007199254740992 * 4)
      .optional(),
    even: z.int().multipleOf(2).optional(),
    ratio: z.number().optional(),
    flag: z.boolean().optional(),
    level: z.literal([1, 2]).optional(),
  });
  it.each([
    // An int past 2**53 is compared exactly: JSON.parse would have made it 9007199254740992.
    ['{"even": 9007199254740993}', "multiple_of", '"input":9007199254740993'],
    ['{"n": 36028797018963969}', "less_than_equal", '"input":36028797018963969'],
    // pydantic's float_as_int: a whole float is an int only within i64.
    ['{"n": 1e19}', "int_parsing_size", '"input":1e+19'],
    ['{"n": 1.5}', "int_from_float", '"input":1.5'],
    // float(int) past the double range fails as float_type.
    [`{"ratio": ${"9".repeat(400)}}`, "float_type", `"input":${"9".repeat(400)}`],
    // bool: ints within i64 and whole floats are 0/1 or bool_parsing; anything larger is bool_type.
    ['{"flag": 2.0}', "bool_parsing", '"input":2.0'],
    ['{"flag": 9223372036854775807}', "bool_parsing", '"input":9223372036854775807'],
    ['{"flag": 9223372036854775808}', "bool_type", '"input":9223372036854775808'],
    ['{"flag": 1e19}', "bool_type", '"input":1e+19'],
    ['{"level": 3.0}', "literal_error", '"input":3.0'],
  ])("%s is %s", async (body, type, input) => {
    const text = await answer(body, Counts);
    expect(text).toContain(`"type":"${type}"`);
    expect(text).toContain(input);
  });

  it.each([
    // Past 2**53 and within every bound: handed on as the nearest safe integer.
    ['{"n": 9007199254740994}', { n: Number.MAX_SAFE_INTEGER }],
    ['{"even": 9007199254740994}', "less_than_equal"],
    ['{"n": 1e2}', { n: 100 }],
    ['{"flag": 1.0}', { flag: true }],
    ['{"flag": -0.0}', { flag: false }],
    ['{"level": 2.0}', { level: 2 }],
    ['{"ratio": 12345678901234567890}', { ratio: 12345678901234567000 }],
  ])("%s gives %j", async (body, value) => {
    const text = await answer(body, Counts);
    if (typeof value === "string") expect(text).toContain(`"type":"${value}"`);
    else expect(text).toBe(`ok ${JSON.stringify(value)}`);
  });
});

describe("lone surrogates", () => {
  it.each([
    ['{"email": "abc", "label": "\\ud800"}', "\\ud800"],
    ['{"email": "abc", "label": "x\\udc00y"}', "x\\udc00y"],
    ['{"email": "abc", "label": "\\udc00\\ud800"}', "\\udc00\\ud800"],
  ])("%s is string_unicode at the field, its input written as an escape", async (body, shown) => {
    expect(await answer(body)).toBe(
      `422 {"detail":[{"type":"string_unicode","loc":["body","label"],"msg":"Input should be a valid string, unable to parse raw data as a unicode string","input":"${shown}"}]}`,
    );
  });

  it("accepts a surrogate pair, which is one character", async () => {
    expect(await answer('{"email": "abc", "label": "\\ud83d\\ude00"}')).toBe(
      'ok {"email":"abc","label":"😀"}',
    );
  });
});

describe("pyJson", () => {
  it("writes a Map in its own order and a bigint with every digit", () => {
    const value = new Map<string, unknown>([
      ["b", new PyFloat(1)],
      ["2", 2n ** 70n],
      ["1", new Map([["__proto__", -0]])],
    ]);
    expect(pyJson(value)).toBe('{"b":1.0,"2":1180591620717411303424,"1":{"__proto__":0}}');
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validationErrorBody } from "../../../server/validation/errors.ts";
import { validateValue } from "../../../server/validation/validate.ts";

// A body shaped like the verification playground's: the DESIGN §5 examples are answers to it.
const Playground = z.object({
  email: z.string().min(3),
  options: z
    .object({
      redlist: z.array(z.string()).max(200).default([]),
      strict: z.boolean().default(false),
    })
    .optional(),
  limit: z.int().min(1).max(100).default(20),
  axis: z.enum(["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9"]).optional(),
});

/** The 422 body FastAPI would send for this input, or "ok". */
function answer(schema: z.ZodType, input: unknown, loc: (string | number)[] = ["body"]): string {
  const result = validateValue(schema, input, loc);
  return result.ok ? "ok" : validationErrorBody(result.issues);
}

const detail = (...issues: string[]) => `{"detail":[${issues.join(",")}]}`;

describe("FastAPI 422 answers (DESIGN §5, recorded from FastAPI 0.142 / pydantic 2.13)", () => {
  const cases: [string, z.ZodType, unknown, string][] = [
    [
      "missing field echoes the whole body",
      Playground,
      { emial: "typo@example.org", limit: 5 },
      detail(
        '{"type":"missing","loc":["body","email"],"msg":"Field required","input":{"emial":"typo@example.org","limit":5}}',
      ),
    ],
    [
      "too short",
      Playground,
      { email: "ab" },
      detail(
        '{"type":"string_too_short","loc":["body","email"],"msg":"String should have at least 3 characters","input":"ab","ctx":{"min_length":3}}',
      ),
    ],
    [
      "numbers are not coerced to strings",
      Playground,
      { email: 123 },
      detail(
        '{"type":"string_type","loc":["body","email"],"msg":"Input should be a valid string","input":123}',
      ),
    ],
    [
      "list too long",
      Playground,
      { email: "abc", options: { redlist: Array.from({ length: 201 }, (_, i) => `w${i}`) } },
      detail(
        `{"type":"too_long","loc":["body","options","redlist"],"msg":"List should have at most 200 items after validation, not 201","input":${JSON.stringify(Array.from({ length: 201 }, (_, i) => `w${i}`))},"ctx":{"field_type":"List","max_length":200,"actual_length":201}}`,
      ),
    ],
    [
      "bool_parsing for words pydantic does not know",
      Playground,
      { email: "abc", options: { strict: "maybe" } },
      detail(
        '{"type":"bool_parsing","loc":["body","options","strict"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"}',
      ),
    ],
    [
      "bool_type for null",
      Playground,
      { email: "abc", options: { strict: null } },
      detail(
        '{"type":"bool_type","loc":["body","options","strict"],"msg":"Input should be a valid boolean","input":null}',
      ),
    ],
    [
      "body not an object",
      Playground,
      ["email"],
      detail(
        '{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":["email"]}',
      ),
    ],
    [
      "all errors in field order, nested locations with list indexes",
      Playground,
      { email: 5, options: { redlist: ["ok", 3, "ok", null], strict: 2 }, limit: "0", axis: "A10" },
      detail(
        '{"type":"string_type","loc":["body","email"],"msg":"Input should be a valid string","input":5}',
        '{"type":"string_type","loc":["body","options","redlist",1],"msg":"Input should be a valid string","input":3}',
        '{"type":"string_type","loc":["body","options","redlist",3],"msg":"Input should be a valid string","input":null}',
        '{"type":"bool_parsing","loc":["body","options","strict"],"msg":"Input should be a valid boolean, unable to interpret input","input":2}',
        '{"type":"greater_than_equal","loc":["body","limit"],"msg":"Input should be greater than or equal to 1","input":"0","ctx":{"ge":1}}',
        `{"type":"enum","loc":["body","axis"],"msg":"Input should be 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8' or 'A9'","input":"A10","ctx":{"expected":"'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8' or 'A9'"}}`,
      ),
    ],
    [
      "a float field's bound is a float in ctx, an int in the message (FastAPI docs: price gt=0)",
      z.object({ name: z.string(), price: z.number().gt(0) }),
      { name: "Invalid", price: -10 },
      detail(
        '{"type":"greater_than","loc":["body","price"],"msg":"Input should be greater than 0","input":-10,"ctx":{"gt":0.0}}',
      ),
    ],
    [
      "pattern mismatch reports the pattern as written (pydantic test_types)",
      z.object({ x: z.string().regex(/^\d+$/) }),
      { x: "abc" },
      detail(
        `{"type":"string_pattern_mismatch","loc":["body","x"],"msg":"String should match pattern '^\\\\d+$'","input":"abc","ctx":{"pattern":"^\\\\d+$"}}`,
      ),
    ],
    [
      "too_short after validation, singular item (pydantic test_types)",
      z.object({ z: z.array(z.int()).min(1) }),
      { z: [] },
      detail(
        '{"type":"too_short","loc":["body","z"],"msg":"List should have at least 1 item after validation, not 0","input":[],"ctx":{"field_type":"List","min_length":1,"actual_length":0}}',
      ),
    ],
  ];
  it.each(cases)("%s", (_name, schema, input, expected) => {
    expect(answer(schema, input)).toBe(expected);
  });
});

describe("strings", () => {
  const cases: [string, z.ZodType, unknown, string][] = [
    ["singular character", z.string().min(1), "", "String should have at least 1 character"],
    ["max", z.string().max(2), "abc", "String should have at most 2 characters"],
    [
      "two emoji are two characters, short of three",
      z.string().min(3),
      "😀😀",
      "String should have at least 3",
    ],
    ["three emoji fit in three", z.string().max(3), "😀😀😀", "ok"],
    ["four emoji exceed three", z.string().max(3), "😀😀😀😀", "String should have at most 3 characters"],
    [
      "a lone surrogate is not a unicode string",
      z.string().min(2).max(2),
      "\ud800x",
      "Input should be a valid string, unable to parse raw data as a unicode string",
    ],
    ["a surrogate pair is one character", z.string().min(1).max(1), "\ud83d\ude00", "ok"],
    ["length() is min and max", z.string().length(2), "abc", "String should have at most 2 characters"],
    ["bool is not a string", z.string(), true, "Input should be a valid string"],
    ["min before pattern", z.string().min(5).regex(/^a/), "b", "String should have at least 5 characters"],
    ["trim applies before the length", z.string().trim().min(2), "  a  ", "String should have at least 2"],
  ];
  it.each(cases)("%s", (_name, schema, input, expected) => {
    expect(answer(schema, input)).toContain(expected);
  });

  it("reports the input as received, before trimming", () => {
    expect(answer(z.string().trim().min(2), " a ")).toContain('"input":" a "');
  });

  it("publishes a RegExp pattern without the slash escapes RegExp#source adds", () => {
    const ARXIV_ID_PATTERN = "^(\\d{4}\\.\\d{4,5}|[a-z]+(-[a-z]+)*(\\.[A-Z]{2})?/\\d{7})(v\\d+)?$";
    const result = validateValue(z.string().regex(new RegExp(ARXIV_ID_PATTERN)), "cs/01", [
      "path",
      "arxiv_id",
    ]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]?.ctx).toEqual({ pattern: ARXIV_ID_PATTERN });
  });

  it("resets lastIndex of global patterns between values", () => {
    const schema = z.string().regex(/a/g);
    expect([answer(schema, "a"), answer(schema, "a"), answer(schema, "a")]).toEqual(["ok", "ok", "ok"]);
  });
});

describe("numbers (lax mode, python input)", () => {
  const Int = z.int().min(1).max(100);
  const cases: [string, z.ZodType, unknown, string][] = [
    ["int from an integral float", Int, 5.0, "ok"],
    ["int from a numeric string", Int, "42", "ok"],
    ["int from true (bool is an int in Python)", Int, true, "ok"],
    ["fractional float", Int, 5.5, '"type":"int_from_float"'],
    ["fractional string is int_parsing, not int_from_float", Int, "5.5", '"type":"int_parsing"'],
    ["unparsable string", Int, "abc", '"type":"int_parsing"'],
    [
      "null",
      Int,
      null,
      '{"type":"int_type","loc":["body"],"msg":"Input should be a valid integer","input":null}',
    ],
    ["list", Int, [1], '"type":"int_type"'],
    ["le", Int, 101, '"msg":"Input should be less than or equal to 100","input":101,"ctx":{"le":100}'],
    ["ge with raw string input", Int, "0", '"input":"0","ctx":{"ge":1}'],
    ["lt", z.int().lt(5), 5, '"type":"less_than","loc":["body"],"msg":"Input should be less than 5"'],
    ["gt", z.int().gt(5), 5, '"type":"greater_than","loc":["body"],"msg":"Input should be greater than 5"'],
    [
      "multiple_of",
      z.int().multipleOf(5),
      6,
      '"msg":"Input should be a multiple of 5","input":6,"ctx":{"multiple_of":5}',
    ],
    ["float multiple_of uses pydantic's tolerance", z.number().multipleOf(0.1), 0.3, "ok"],
    ["float multiple_of", z.number().multipleOf(0.5), 0.6, '"ctx":{"multiple_of":0.5}'],
    ["float parsing", z.number(), "x", "Input should be a valid number, unable to parse string as a number"],
    [
      "float type",
      z.number(),
      {},
      '"type":"float_type","loc":["body"],"msg":"Input should be a valid number"',
    ],
    [
      "float bound message (pydantic test_float: lt=0.123456)",
      z.number().lt(0.123456),
      1,
      "less than 0.123456",
    ],
    ["float bound in ctx", z.number().lt(0.123456), 1, '"ctx":{"lt":0.123456}'],
    [
      "nan string is not finite",
      z.number(),
      "nan",
      '"type":"finite_number","loc":["body"],"msg":"Input should be a finite number"',
    ],
    ["infinity is not finite", z.number(), Infinity, '"type":"finite_number"'],
    ["int bound checked on huge values", z.int(), 1e300, "less than or equal to 9007199254740991"],
    ["a declared bound wins over the format's", z.int().min(0), -1e300, "greater than or equal to 0"],
    ["int32 range", z.int32(), 2 ** 31, "less than or equal to 2147483647"],
    ["order: le is reported before ge", z.int().min(10).max(5), 7, "less than or equal to 5"],
  ];
  it.each(cases)("%s", (_name, schema, input, expected) => {
    expect(answer(schema, input)).toContain(expected);
  });

  it("returns coerced values", () => {
    expect(
      validateValue(z.object({ a: z.int(), b: z.number(), c: z.boolean() }), {
        a: "0_42",
        b: "1e3",
        c: "on",
      }),
    ).toEqual({
      ok: true,
      value: { a: 42, b: 1000, c: true },
    });
  });
});

describe("booleans", () => {
  const cases: [unknown, string][] = [
    [true, "ok"],
    ["FALSE", "ok"],
    ["y", "ok"],
    ["off", "ok"],
    [0, "ok"],
    [1, "ok"],
    [2, "bool_parsing"],
    [" true", "bool_parsing"],
    ["", "bool_parsing"],
    [0.5, "bool_type"],
    [null, "bool_type"],
    [[], "bool_type"],
  ];
  it.each(cases)("%j -> %s", (input, expected) => {
    expect(answer(z.boolean(), input)).toContain(expected);
  });
});

describe("enums and literals", () => {
  it("literal_error lists Python reprs", () => {
    expect(answer(z.literal(["a", 1, true, null]), "zz")).toBe(
      detail(
        `{"type":"literal_error","loc":["body"],"msg":"Input should be 'a', 1, True or None","input":"zz","ctx":{"expected":"'a', 1, True or None"}}`,
      ),
    );
  });

  it("a single value has no 'or'", () => {
    expect(answer(z.enum(["rules"]), "llm")).toContain(`"msg":"Input should be 'rules'"`);
  });

  it("a union of literals is one literal_error", () => {
    expect(answer(z.union([z.literal("asc"), z.literal("desc")]), "up")).toContain(
      `Input should be 'asc' or 'desc'`,
    );
  });

  it("matches with Python equality: True == 1", () => {
    expect(validateValue(z.literal(1), true)).toEqual({ ok: true, value: 1 });
    expect(answer(z.literal(1), "1")).toContain("literal_error");
  });
});

describe("objects", () => {
  it("applies defaults, omits absent optionals and ignores extra keys", () => {
    expect(validateValue(Playground, { email: "abc", extra: 1 })).toEqual({
      ok: true,
      value: { email: "abc", limit: 20 },
    });
    expect(validateValue(Playground, { email: "abc", options: {} })).toEqual({
      ok: true,
      value: { email: "abc", options: { redlist: [], strict: false }, limit: 20 },
    });
  });

  it("gives every request its own default object", () => {
    const first = validateValue(Playground, { email: "abc", options: {} });
    const second = validateValue(Playground, { email: "abc", options: {} });
    if (!first.ok || !second.ok) throw new Error("expected valid input");
    expect(first.value.options?.redlist).not.toBe(second.value.options?.redlist);
  });

  it("reads own properties only: constructor and __proto__ are data, never Object.prototype", () => {
    const schema = z.object({ constructor: z.string(), toString: z.int().optional() });
    const body = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}');
    expect(answer(schema, body)).toBe(
      detail(
        '{"type":"string_type","loc":["body","constructor"],"msg":"Input should be a valid string","input":1}',
      ),
    );
    expect(answer(z.object({ constructor: z.string() }), {})).toContain('"type":"missing"');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps an own __proto__ key in the output without touching the prototype", () => {
    const schema = z.looseObject({ a: z.int() });
    const result = validateValue(schema, JSON.parse('{"a": 1, "__proto__": {"polluted": true}}'));
    if (!result.ok) throw new Error("expected valid input");
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(Object.keys(result.value)).toEqual(["a", "__proto__"]);
    expect((result.value as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("forbids extra keys of strict objects after the declared fields", () => {
    expect(answer(z.strictObject({ a: z.int() }), { z: 1, a: "x" })).toBe(
      detail(
        '{"type":"int_parsing","loc":["body","a"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}',
        '{"type":"extra_forbidden","loc":["body","z"],"msg":"Extra inputs are not permitted","input":1}',
      ),
    );
  });

  it("nested objects that are not dicts are model_attributes_type too", () => {
    expect(answer(Playground, { email: "abc", options: "x" })).toContain(
      '"type":"model_attributes_type","loc":["body","options"]',
    );
  });

  it("too_long hides item errors, as pydantic stops at the item past the limit", () => {
    expect(answer(z.array(z.int()).max(2), ["a", "b", "c"])).not.toContain("int_parsing");
  });

  it("validates recursive schemas", () => {
    const Node: z.ZodType<{ name: string; children: unknown[] }> = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    expect(
      answer(Node, { name: "a", children: [{ name: "b", children: [{ name: 1, children: [] }] }] }),
    ).toContain('"loc":["body","children",0,"children",0,"name"]');
  });
});

describe("nullable, optional, wrappers", () => {
  const cases: [string, z.ZodType, unknown, string][] = [
    ["nullable accepts null", z.int().nullable(), null, "ok"],
    ["nullable validates the rest", z.int().nullable(), "x", "int_parsing"],
    ["X | null union acts as nullable", z.union([z.string(), z.null()]), 5, '"type":"string_type"'],
    ["optional does not accept null", z.string().optional(), null, '"type":"string_type"'],
    ["z.null", z.null(), 0, '{"type":"none_required","loc":["body"],"msg":"Input should be None","input":0}'],
    ["readonly", z.array(z.int()).readonly(), ["x"], '"loc":["body",0]'],
    ["pipe validates in, then out", z.string().pipe(z.string().min(3)), "ab", "string_too_short"],
  ];
  it.each(cases)("%s", (_name, schema, input, expected) => {
    expect(answer(schema, input)).toContain(expected);
  });

  it("runs transforms after validation", () => {
    expect(
      validateValue(
        z
          .string()
          .min(1)
          .transform((s) => s.length),
        "abcd",
      ),
    ).toEqual({ ok: true, value: 4 });
  });
});

describe("refinements become value_error", () => {
  it("a field refinement", () => {
    expect(
      answer(z.object({ day: z.string().refine((v) => v !== "2026-02-30", "not a calendar day") }), {
        day: "2026-02-30",
      }),
    ).toBe(
      detail(
        '{"type":"value_error","loc":["body","day"],"msg":"Value error, not a calendar day","input":"2026-02-30","ctx":{"error":{}}}',
      ),
    );
  });

  it("runs only after the field's own constraints passed", () => {
    const schema = z
      .string()
      .min(5)
      .refine(() => false, "never");
    expect(answer(schema, "ab")).toContain("string_too_short");
    expect(answer(schema, "ab")).not.toContain("never");
  });

  it("reports the raw input, not the coerced value", () => {
    expect(
      answer(
        z.int().refine((n) => n % 2 === 0, "odd"),
        "7",
      ),
    ).toContain('"input":"7"');
  });

  it("an object refinement with a path", () => {
    const schema = z
      .object({ from: z.int(), to: z.int() })
      .refine((v) => v.from <= v.to, { message: "from after to", path: ["to"] });
    expect(answer(schema, { from: 3, to: 1 })).toContain(
      '"loc":["body","to"],"msg":"Value error, from after to"',
    );
  });

  it("sits next to other fields' errors", () => {
    const schema = z.object({ a: z.string().refine(() => false, "bad a"), b: z.int() });
    const body = answer(schema, { a: "x", b: "y" });
    expect(body.indexOf("bad a")).toBeLessThan(body.indexOf("int_parsing"));
  });

  it("string formats pydantic has no constraint for use zod's message", () => {
    expect(answer(z.email(), "nope")).toContain('"msg":"Value error, Invalid email address"');
  });
});

describe("location prefix", () => {
  it("starts every loc with the given prefix", () => {
    expect(answer(z.int(), "x", ["query", "limit"])).toBe(
      detail(
        '{"type":"int_parsing","loc":["query","limit"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}',
      ),
    );
  });
});

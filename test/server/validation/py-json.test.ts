import { describe, expect, it } from "vitest";
import { detailBody, makeIssue, validationErrorBody } from "../../../server/validation/errors.ts";
import { PyFloat, pyFloatRepr, pyJson, rustFloatDisplay } from "../../../server/validation/py-json.ts";
import { expectedRepr, pyStrRepr } from "../../../server/validation/py-repr.ts";

// Python 3.11: repr(x) == json.dumps(x) for every row.
const FLOAT_REPR: [number, string][] = [
  [1.0, "1.0"],
  [0.5, "0.5"],
  [0.1, "0.1"],
  [1e-5, "1e-05"],
  [0.0001, "0.0001"],
  [1e16, "1e+16"],
  [1e15, "1000000000000000.0"],
  [123456789012345.6, "123456789012345.6"],
  [1.5e-7, "1.5e-07"],
  [-2.5, "-2.5"],
  [1e22, "1e+22"],
  [Math.PI, "3.141592653589793"],
  [100.0, "100.0"],
  [2 ** 53, "9007199254740992.0"],
  [0.00012345, "0.00012345"],
  [-0, "-0.0"],
];

describe("pyFloatRepr", () => {
  it.each(FLOAT_REPR)("%d -> %s", (value, expected) => {
    expect(pyFloatRepr(value)).toBe(expected);
  });
});

// Rust's Display for f64, as pydantic-core formats bounds inside messages.
const RUST_DISPLAY: [number, string][] = [
  [0, "0"],
  [1, "1"],
  [0.5, "0.5"],
  [0.123456, "0.123456"],
  [1e-7, "0.0000001"],
  [1e21, "1000000000000000000000"],
  [-2.5, "-2.5"],
];

describe("rustFloatDisplay", () => {
  it.each(RUST_DISPLAY)("%d -> %s", (value, expected) => {
    expect(rustFloatDisplay(value)).toBe(expected);
  });
});

describe("pyJson", () => {
  it("writes compact JSON with Python's number forms", () => {
    expect(pyJson({ a: [1, 2.5, 1e-5, new PyFloat(0), new PyFloat(1)], b: null, c: "é\n" })).toBe(
      '{"a":[1,2.5,1e-05,0.0,1.0],"b":null,"c":"é\\n"}',
    );
  });

  it("keeps an own __proto__ key and writes undefined and non-finite numbers as null", () => {
    expect(pyJson(JSON.parse('{"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1}}');
    expect(pyJson({ a: undefined, b: [undefined], c: Number.NaN, d: -Infinity })).toBe(
      '{"a":null,"b":[null],"c":null,"d":null}',
    );
  });
});

describe("issue records", () => {
  it("keep FastAPI's key order and omit ctx when there is none", () => {
    const issue = makeIssue("x", ["body"], "m", 1, { k: 2 });
    expect(Object.keys(issue)).toEqual(["type", "loc", "msg", "input", "ctx"]);
    expect(Object.keys(makeIssue("x", ["body"], "m", 1))).toEqual(["type", "loc", "msg", "input"]);
    expect(validationErrorBody([issue])).toBe(
      '{"detail":[{"type":"x","loc":["body"],"msg":"m","input":1,"ctx":{"k":2}}]}',
    );
  });

  it("detail bodies", () => {
    expect(detailBody("Not Found")).toBe('{"detail":"Not Found"}');
  });
});

// Python 3.11 repr() of each string.
const STR_REPR: [string, string][] = [
  ["A1", "'A1'"],
  ["it's", `"it's"`],
  ['say "hi"', `'say "hi"'`],
  [`both ' and "`, `'both \\' and "'`],
  ["tab\there", "'tab\\there'"],
  ["nl\n", "'nl\\n'"],
  ["bs\\", "'bs\\\\'"],
  ["\x7f", "'\\x7f'"],
  ["\u00a0x", "'\\xa0x'"],
  ["é😀", "'é😀'"],
  ["\u200b", "'\\u200b'"],
  ["\u{e0001}", "'\\U000e0001'"],
];

describe("Python repr for enum and literal messages", () => {
  it.each(STR_REPR)("%j -> %s", (value, expected) => {
    expect(pyStrRepr(value)).toBe(expected);
  });

  it("joins like pydantic-core's expected_repr", () => {
    expect(expectedRepr(["A1"])).toBe("'A1'");
    expect(expectedRepr(["A1", "A2"])).toBe("'A1' or 'A2'");
    expect(expectedRepr(["a", 1, 1.5, false, null])).toBe("'a', 1, 1.5, False or None");
  });
});

import { describe, expect, it } from "vitest";
import { rustTrim, strAsBool, strAsFloat, strAsInt } from "../../../server/validation/lax.ts";

// Rows from pydantic-core tests/validators/test_int.py (test_int_py_and_json), string inputs only.
const INT_CASES: [string, number | "int_parsing" | "int_parsing_size"][] = [
  ["0", 0],
  ["00", 0],
  ["000", 0],
  ["0_000", 0],
  ["+0", 0],
  ["+00", 0],
  ["+000", 0],
  ["+0_000", 0],
  ["  1  ", 1],
  ["-1", -1],
  ["-1.0", -1],
  ["42", 42],
  ["0.0", 0],
  ["00.0", 0],
  ["00.00", 0],
  ["42.0", 42],
  ["42.00", 42],
  ["042", 42],
  ["01", 1],
  ["09", 9],
  ["00_", "int_parsing"],
  ["0:", "int_parsing"],
  ["+4_2", 42],
  ["+0_42", 42],
  ["+4_2.0", 42],
  ["+04_2.0", 42],
  ["++4_2", "int_parsing"],
  ["-+1", "int_parsing"],
  ["+-1", "int_parsing"],
  ["--0001", "int_parsing"],
  ["-+0001", "int_parsing"],
  ["-0-001", "int_parsing"],
  ["-0+001", "int_parsing"],
  ["-00001", -1],
  ["-00042_000", -42000],
  ["4_2", 42],
  ["0_42", 42],
  ["4_2.0", 42],
  ["04_2.0", 42],
  ["  04_2.0 ", 42],
  ["  0_42.0 ", 42],
  ["  _042.0 ", "int_parsing"],
  ["42_", "int_parsing"],
  ["42_.0", "int_parsing"],
  ["000001", 1],
  ["123456789.0", 123456789],
  [" ", "int_parsing"],
  ["1.", "int_parsing"],
  ["42.", "int_parsing"],
  ["123456789123456.00001", "int_parsing"],
  ["wrong", "int_parsing"],
  ["123.000", 123],
  ["1".repeat(4301), "int_parsing_size"],
  // Rust's trim knows U+0085 and not U+FEFF, unlike String.prototype.trim.
  ["\u00855\u0085", 5],
  ["\ufeff5", "int_parsing"],
  ["1e3", "int_parsing"],
  ["", "int_parsing"],
];

describe("strAsInt", () => {
  it.each(INT_CASES)("%j -> %j", (input, expected) => {
    expect(strAsInt(input)).toBe(expected);
  });
});

// pydantic-core tests/validators/test_float.py, string inputs.
const FLOAT_CASES: [string, number | undefined][] = [
  ["42", 42],
  ["  42.1  ", 42.1],
  ["42.123", 42.123],
  ["123.456", 123.456],
  ["wrong", undefined],
  ["pika", undefined],
  ["0.7", 0.7],
  ["1.0e-12", 1e-12],
  ["12E+1", 120],
  ["1_000_000.0", 1_000_000],
  ["_1", undefined],
  ["_1.0", undefined],
  ["1__0", undefined],
  ["1.1__1", undefined],
  ["1_0.0_", undefined],
  ["1._", undefined],
  ["1_0__0.0", undefined],
  ["+inf", Infinity],
  ["-infinity", -Infinity],
  ["Infinity", Infinity],
  ["1.", 1],
  [".5", 0.5],
  [".", undefined],
  ["0x10", undefined],
  ["1".repeat(800), Infinity],
];

describe("strAsFloat", () => {
  it.each(FLOAT_CASES)("%j -> %j", (input, expected) => {
    expect(strAsFloat(input)).toBe(expected);
  });

  it("parses NaN in any case", () => {
    expect(strAsFloat("NaN")).toBeNaN();
    expect(strAsFloat("-nan")).toBeNaN();
  });
});

// pydantic-core src/input/shared.rs str_as_bool: ASCII case-insensitive, no trimming.
const BOOL_CASES: [string, boolean | undefined][] = [
  ["0", false],
  ["f", false],
  ["N", false],
  ["no", false],
  ["OFF", false],
  ["False", false],
  ["1", true],
  ["T", true],
  ["y", true],
  ["On", true],
  ["YES", true],
  ["true", true],
  ["truthy", undefined],
  [" true", undefined],
  ["2", undefined],
  ["", undefined],
  // The Kelvin sign lower-cases to "k" in Unicode; ASCII-only folding must not care, nor fold "ſ" to "s".
  ["yeſ", undefined],
];

describe("strAsBool", () => {
  it.each(BOOL_CASES)("%j -> %j", (input, expected) => {
    expect(strAsBool(input)).toBe(expected);
  });
});

describe("rustTrim", () => {
  it("strips Unicode White_Space at both ends only", () => {
    expect(rustTrim("\t\u3000 a b \u2028\n")).toBe("a b");
    expect(rustTrim("\ufeffa")).toBe("\ufeffa");
  });
});

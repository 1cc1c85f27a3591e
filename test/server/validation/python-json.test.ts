import { describe, expect, it } from "vitest";
import { decodeJsonBytes } from "../../../server/validation/body-text.ts";
import { plainValue } from "../../../server/validation/py-value.ts";
import { parsePythonJson } from "../../../server/validation/python-json.ts";
import { MAX_JSON_DEPTH, scanPythonJson } from "../../../server/validation/python-json-scanner.ts";
import { PYTHON_JSON_CASES } from "./python-json-cases.ts";

type Verdict = [string, number] | null | "too_deep";

function verdict(result: ReturnType<typeof parsePythonJson>): Verdict {
  if (result.ok) return null;
  return result.reason === "invalid" ? [result.msg, result.pos] : "too_deep";
}

describe("json.loads verdicts recorded from CPython (generated table)", () => {
  it.each(PYTHON_JSON_CASES)("%j", (body, expected) => {
    // As FastAPI does: the body's bytes, decoded like json.loads(bytes), then parsed.
    const text = decodeJsonBytes(new TextEncoder().encode(body));
    if (text === undefined) throw new Error("table bodies are valid UTF-8");
    expect(verdict(parsePythonJson(text))).toEqual(expected);
    expect(verdict(scanPythonJson(text))).toEqual(expected);
  });
});

// CPython 3.13 Lib/test/test_json/test_fail.py, test_truncated_input, test_unexpected_data, test_extra_data.
const CPYTHON_313: [string, string, number][] = [
  ["", "Expecting value", 0],
  ["[", "Expecting value", 1],
  ["[42", "Expecting ',' delimiter", 3],
  ["[42,", "Expecting value", 4],
  ['["', "Unterminated string starting at", 1],
  ['["spam', "Unterminated string starting at", 1],
  ['["spam"', "Expecting ',' delimiter", 7],
  ['["spam",', "Expecting value", 8],
  ["{", "Expecting property name enclosed in double quotes", 1],
  ['{"', "Unterminated string starting at", 1],
  ['{"spam', "Unterminated string starting at", 1],
  ['{"spam"', "Expecting ':' delimiter", 7],
  ['{"spam":', "Expecting value", 8],
  ['{"spam":42', "Expecting ',' delimiter", 10],
  ['{"spam":42,', "Expecting property name enclosed in double quotes", 11],
  ['"', "Unterminated string starting at", 0],
  ['"spam', "Unterminated string starting at", 0],
  ["[,", "Expecting value", 1],
  ['{"spam":[}', "Expecting value", 9],
  ["[42:", "Expecting ',' delimiter", 3],
  ['[42 "spam"', "Expecting ',' delimiter", 4],
  ["[42,]", "Illegal trailing comma before end of array", 3],
  ['{"spam":[42}', "Expecting ',' delimiter", 11],
  ['["]', "Unterminated string starting at", 1],
  ['["spam":', "Expecting ',' delimiter", 7],
  ['["spam",]', "Illegal trailing comma before end of array", 7],
  ["{:", "Expecting property name enclosed in double quotes", 1],
  ["{,", "Expecting property name enclosed in double quotes", 1],
  ["{42", "Expecting property name enclosed in double quotes", 1],
  ["[{]", "Expecting property name enclosed in double quotes", 2],
  ['{"spam",', "Expecting ':' delimiter", 7],
  ['{"spam"}', "Expecting ':' delimiter", 7],
  ['[{"spam"]', "Expecting ':' delimiter", 8],
  ['{"spam":}', "Expecting value", 8],
  ['[{"spam":]', "Expecting value", 9],
  ['{"spam":42 "ham"', "Expecting ',' delimiter", 11],
  ['[{"spam":42]', "Expecting ',' delimiter", 11],
  ['{"spam":42,}', "Illegal trailing comma before end of object", 10],
  ['{"spam":42 , }', "Illegal trailing comma before end of object", 11],
  ["[123  , ]", "Illegal trailing comma before end of array", 6],
  ["[]]", "Extra data", 2],
  ["{}}", "Extra data", 2],
  ["[],[]", "Extra data", 2],
  ["{},{}", "Extra data", 2],
  ['42,"spam"', "Extra data", 2],
  ['"spam",42', "Extra data", 6],
  ["!", "Expecting value", 0],
  [" !", "Expecting value", 1],
  ["\n!", "Expecting value", 1],
  ["\n  \n\n     !", "Expecting value", 10],
];

describe("CPython 3.13's own test cases", () => {
  it.each(CPYTHON_313)("%j -> %s at %d", (body, msg, pos) => {
    expect(verdict(parsePythonJson(body))).toEqual([msg, pos]);
  });
});

describe("what Python accepts and JSON.parse does not", () => {
  it("reads NaN, Infinity and -Infinity as the JS numbers", () => {
    const result = parsePythonJson('{"a": [NaN, Infinity, -Infinity], "b": 1}');
    expect(result.ok && plainValue(result.value)).toEqual({ a: [Number.NaN, Infinity, -Infinity], b: 1 });
  });

  it("still refuses the lower-case and partial spellings", () => {
    expect(verdict(parsePythonJson("nan"))).toEqual(["Expecting value", 0]);
    expect(verdict(parsePythonJson("[-Inf]"))).toEqual(["Expecting value", 1]);
  });
});

describe("scanner values agree with JSON.parse, read as plain JS", () => {
  const bodies = [
    '{"a": 1, "b": [true, false, null, -0.5e3, "x\\u00e9\\ud83d\\ude00\\n"], "c": {}}',
    '{"a": 1, "a": 2, "b": 3}',
    '"\\ud800 lone"',
    "[[], {}, [[1]], 12345678901234567890]",
  ];
  it.each(bodies)("%s", (body) => {
    const result = scanPythonJson(body);
    expect(result.ok && plainValue(result.value)).toEqual(JSON.parse(body));
  });

  it("makes __proto__ an own key, like JSON.parse", () => {
    const result = scanPythonJson('{"__proto__": {"polluted": true}, "x": NaN}');
    if (!result.ok) throw new Error("expected a value");
    const value = plainValue(result.value) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__", "x"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("positions count code points, as Python's str does", () => {
  it("an astral character before the error counts once", () => {
    // UTF-16 would put the x at 9.
    expect(verdict(parsePythonJson('["😀😀", x]'))).toEqual(["Expecting value", 7]);
  });
});

describe("nesting deeper than Python's recursion limit", () => {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  it("is refused by both paths past the limit", () => {
    expect(verdict(parsePythonJson(deep(MAX_JSON_DEPTH + 1)))).toBe("too_deep");
    expect(verdict(scanPythonJson(deep(MAX_JSON_DEPTH + 1)))).toBe("too_deep");
    expect(verdict(parsePythonJson(`${"[".repeat(200_000)}x`))).toBe("too_deep");
  });

  it("is accepted up to the limit", () => {
    expect(verdict(parsePythonJson(deep(MAX_JSON_DEPTH)))).toBeNull();
    expect(verdict(parsePythonJson(`["${"[".repeat(5000)}"]`))).toBeNull();
  });
});

describe("a megabyte of almost-JSON", () => {
  it("is diagnosed at its end", () => {
    const body = `[${'"abcdefgh",'.repeat(95_000)}1`;
    expect(verdict(parsePythonJson(body))).toEqual(["Expecting ',' delimiter", body.length]);
  });
});

// hiddenProblem walks JSON.parse's value recursively, without allocating; the explicit-stack walk it
// replaced is kept here as the oracle.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hiddenProblem, parsePythonJson } from "../../../server/validation/python-json.ts";
import { MAX_JSON_DEPTH } from "../../../server/validation/python-json-scanner.ts";

function oracle(root: unknown): "too_deep" | "infinite" | undefined {
  if (typeof root === "number") return Number.isFinite(root) ? undefined : "infinite";
  let infinite = false;
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (typeof value !== "object" || value === null) continue;
    if (depth + 1 > MAX_JSON_DEPTH) return "too_deep";
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
      else if (typeof child === "number" && !Number.isFinite(child)) infinite = true;
    }
  }
  return infinite ? "infinite" : undefined;
}

function nested(depth: number, inner: string, kind: "array" | "object"): string {
  return kind === "array"
    ? "[".repeat(depth) + inner + "]".repeat(depth)
    : '{"a":'.repeat(depth) + inner + "}".repeat(depth);
}

const leaf = fc.oneof(
  fc.string(),
  fc.double(),
  fc.constantFrom(Infinity, -Infinity, 1e308, 0, -0),
  fc.boolean(),
  fc.constant(null),
);
const tree = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 5 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constant("__proto__")), tie("value"), { maxKeys: 5 }),
})).value;

describe("hiddenProblem", () => {
  it("agrees with the explicit-stack walk on generated values", () => {
    fc.assert(
      fc.property(tree, (value) => {
        // As JSON.parse hands it over: __proto__ an own key, every object plain.
        const parsed = JSON.parse(JSON.stringify(value) ?? "null", (_key, v) => v);
        expect(hiddenProblem(parsed)).toBe(oracle(parsed));
        expect(hiddenProblem(value)).toBe(oracle(value));
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees at and around the depth limit, infinite numbers at any depth", () => {
    for (const depth of [1, 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 3 * MAX_JSON_DEPTH]) {
      for (const kind of ["array", "object"] as const) {
        for (const inner of ["1", "1e999", '"x"', "[]", "{}", "[1e999]"]) {
          const value = JSON.parse(nested(depth, inner, kind));
          expect(hiddenProblem(value)).toBe(oracle(value));
        }
      }
    }
    // An infinite number beside a branch too deep: too deep wins, whichever comes first.
    const deep = nested(MAX_JSON_DEPTH + 5, "0", "array");
    for (const text of [`[1e999,${deep}]`, `[${deep},1e999]`, `{"a":1e999,"b":${deep}}`]) {
      const value = JSON.parse(text);
      expect(hiddenProblem(value)).toBe("too_deep");
      expect(oracle(value)).toBe("too_deep");
    }
  });

  it("keeps parsePythonJson's verdicts on deep and infinite bodies", () => {
    const padding = " ".repeat(5000);
    expect(parsePythonJson(`${nested(MAX_JSON_DEPTH + 1, "0", "array")}${padding}`)).toEqual({
      ok: false,
      reason: "too_deep",
    });
    const infinite = parsePythonJson(`{"a":[1e999]}${padding}`);
    expect(infinite.ok).toBe(true);
    expect("approximate" in infinite).toBe(false);
  });
});

// Python's json.loads on a decoded body, as FastAPI calls it: JSON.parse does the work whenever it
// succeeds; otherwise the CPython scanner port gives Python's verdict.
import { MAX_INT_DIGITS } from "./py-value.ts";
import { MAX_JSON_DEPTH, type PythonJsonResult, scanPythonJson } from "./python-json-scanner.ts";

/**
 * `approximate`: JSON.parse's plain value, which validates like Python's but may not echo like it
 * (1.0 reads as 1, {"2":0,"1":0} reorders): scanPythonJson gives the exact one when an answer needs it.
 */
export type ParsedJson = PythonJsonResult | { ok: true; value: unknown; approximate: true };

/**
 * What JSON.parse's value hides: nesting deeper than Python's decoder goes (JSON.parse has no limit),
 * or an infinite number, which may be an integer of more than 4300 digits that Python refuses. Walks the
 * values, not the characters (a 10 kB string is one value), with an explicit stack: a deep value must
 * not overflow ours.
 */
function hiddenProblem(root: unknown): "too_deep" | "infinite" | undefined {
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

/** Parses a body the way Python's json.loads does, at JSON.parse speed when the body is plain JSON. */
export function parsePythonJson(text: string): ParsedJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return scanPythonJson(text);
  }
  // Shorter texts can neither nest 1000 deep nor hold a 4301-digit integer.
  if (text.length > Math.min(2 * MAX_JSON_DEPTH, MAX_INT_DIGITS)) {
    const problem = hiddenProblem(value);
    if (problem === "too_deep") return { ok: false, reason: "too_deep" };
    if (problem === "infinite") return scanPythonJson(text);
  }
  return { ok: true, value, approximate: true };
}

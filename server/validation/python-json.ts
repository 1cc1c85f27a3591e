// Python's json.loads on a decoded body, as FastAPI calls it: JSON.parse does the work whenever it
// succeeds; otherwise the CPython scanner port gives Python's verdict.
import { MAX_INT_DIGITS } from "./py-value.ts";
import { MAX_JSON_DEPTH, type PythonJsonResult, scanPythonJson } from "./python-json-scanner.ts";

/**
 * `approximate`: JSON.parse's plain value, which validates like Python's but may not echo like it
 * (1.0 reads as 1, {"2":0,"1":0} reorders): scanPythonJson gives the exact one when an answer needs it.
 */
export type ParsedJson = PythonJsonResult | { ok: true; value: unknown; approximate: true };

// What a walk of JSON.parse's value found: nothing, an infinite number, or nesting too deep.
const PLAIN = 0;
const INFINITE = 1;
const TOO_DEEP = 2;

/**
 * The worst of `value`'s descendants, `value` itself at `depth` (a container there holds depth + 1).
 * Recursive, without an array or a tuple per container: the walk allocates nothing. Deeper than
 * MAX_JSON_DEPTH is an answer in itself, so the recursion never goes further than that.
 */
function walkProblem(value: object, depth: number): number {
  if (depth + 1 > MAX_JSON_DEPTH) return TOO_DEEP;
  let found = PLAIN;
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      const inner = childProblem(value[k], depth);
      if (inner === TOO_DEEP) return TOO_DEEP;
      found |= inner;
    }
    return found;
  }
  // JSON.parse makes plain objects: their own enumerable keys are all that for-in sees.
  for (const key in value) {
    const inner = childProblem((value as Record<string, unknown>)[key], depth);
    if (inner === TOO_DEEP) return TOO_DEEP;
    found |= inner;
  }
  return found;
}

/** What a child of a container at `depth` holds: a container's walk, or whether it is infinite. */
function childProblem(child: unknown, depth: number): number {
  if (typeof child === "object" && child !== null) return walkProblem(child, depth + 1);
  return typeof child === "number" && !Number.isFinite(child) ? INFINITE : PLAIN;
}

/**
 * What JSON.parse's value hides: nesting deeper than Python's decoder goes (JSON.parse has no limit),
 * or an infinite number, which may be an integer of more than 4300 digits that Python refuses. Walks the
 * values, not the characters (a 10 kB string is one value); the recursion stops at MAX_JSON_DEPTH, so a
 * deep value cannot overflow the stack.
 */
export function hiddenProblem(root: unknown): "too_deep" | "infinite" | undefined {
  if (typeof root === "number") return Number.isFinite(root) ? undefined : "infinite";
  if (typeof root !== "object" || root === null) return undefined;
  const found = walkProblem(root, 0);
  return found === TOO_DEEP ? "too_deep" : found === INFINITE ? "infinite" : undefined;
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

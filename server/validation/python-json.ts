// Python's json.loads on a decoded body, as FastAPI calls it: JSON.parse does the work whenever it
// succeeds; otherwise the CPython scanner port gives Python's verdict.
import { MAX_JSON_DEPTH, type PythonJsonResult, scanPythonJson } from "./python-json-scanner.ts";

// JSON.parse has no depth limit, so a document it accepted is checked for Python's.
/**
 * Whether the parsed value nests deeper than Python's decoder would go. Walks the values, not the
 * characters (a 10 kB string is one value), with an explicit stack: a deep value must not overflow ours.
 */
function exceedsDepth(root: unknown): boolean {
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (typeof value !== "object" || value === null) continue;
    if (depth + 1 > MAX_JSON_DEPTH) return true;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Parses a body the way Python's json.loads does, at JSON.parse speed when the body is plain JSON. */
export function parsePythonJson(text: string): PythonJsonResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return scanPythonJson(text);
  }
  if (text.length > 2 * MAX_JSON_DEPTH && exceedsDepth(value)) return { ok: false, reason: "too_deep" };
  return { ok: true, value };
}

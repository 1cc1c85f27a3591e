// Python's json.loads on a decoded body, as FastAPI calls it: JSON.parse does the work whenever it
// succeeds; otherwise the CPython scanner port gives Python's verdict.
import { MAX_JSON_DEPTH, type PythonJsonResult, scanPythonJson } from "./python-json-scanner.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// JSON.parse has no depth limit, so a document it accepted is checked for Python's.
function exceedsDepth(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
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
  if (text.length > 2 * MAX_JSON_DEPTH && exceedsDepth(text)) return { ok: false, reason: "too_deep" };
  return { ok: true, value };
}

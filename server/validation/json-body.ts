// FastAPI's request-body rules (fastapi/routing.py, strict_content_type=True, the 0.142 default):
// read the bytes; empty means no body; `application/json` and `application/*+json` are parsed with
// json.loads; any other type, or none, leaves the text unparsed for validation to refuse.

import { decodeJsonBytes, decodeRawBytes } from "./body-text.ts";
import { detailBody, jsonInvalid, validationErrorBody } from "./errors.ts";
import { readExactJson } from "./exact-json.ts";
import { parsePythonJson } from "./python-json.ts";
import { nodeRequest, readBodyLimited } from "./read-body.ts";

/** The cap of a route that names none; each POST route names its own, sized to what its schema holds. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * `value` is undefined for an empty body; a string for an unparsed (non-JSON) body. `exact`, when
 * present, gives the value as py-value.ts holds it, for answers that echo the body: `value` is then
 * JSON.parse's, which validates the same but may print differently.
 */
export type BodyResult =
  | { ok: true; value: unknown; exact?: () => unknown }
  | { ok: false; status: 400 | 413 | 422; body: string };

export interface BodyOptions {
  /** Bodies larger than this are answered 413 as soon as that is known, never read whole. */
  maxBytes?: number;
}

const PARSE_ERROR: BodyResult = {
  ok: false,
  status: 400,
  body: detailBody("There was an error parsing the body"),
};
/** The 413 answer of a route that takes at most `maxBytes`. */
export function tooLarge(maxBytes: number): BodyResult {
  return {
    ok: false,
    status: 413,
    body: detailBody(`Request body too large: this endpoint takes at most ${maxBytes} bytes`),
  };
}

// str.isspace(): Unicode's whitespace plus the separators U+001C..U+001F, without U+FEFF.
function isPythonSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    (c >= 0x1c && c <= 0x20) ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPythonSpace(text.charCodeAt(start))) start++;
  while (end > start && isPythonSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/**
 * email.message's reading of Content-Type, as FastAPI applies it: the part before ";", stripped and
 * lower-cased; anything without exactly one "/" counts as text/plain.
 * @example isJsonContentType("application/vnd.api+json; charset=utf-8") // true
 */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const semicolon = value.indexOf(";");
  const type = pyStrip(semicolon === -1 ? value : value.slice(0, semicolon)).toLowerCase();
  const parts = type.split("/");
  if (parts.length !== 2) return false;
  const [main, sub = ""] = parts;
  return main === "application" && (sub === "json" || sub.endsWith("+json"));
}

/** Reads and parses a request body with FastAPI's answers for what cannot be parsed. */
export async function parseJsonBody(request: Request, options: BodyOptions = {}): Promise<BodyResult> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const read = await readBodyLimited(request, maxBytes);
  if (!read.ok) return tooLarge(maxBytes);
  // A repeated Content-Type: Starlette reads the first, as Node keeps it; Headers would join them.
  const node = nodeRequest(request);
  return parseBodyBytes(
    read.bytes,
    node ? node.headers["content-type"] : request.headers.get("content-type"),
  );
}

/** A body already read, parsed as `parseJsonBody` does under its Content-Type. */
export function parseBodyBytes(bytes: Uint8Array, contentType: string | null | undefined): BodyResult {
  if (bytes.byteLength === 0) return { ok: true, value: undefined };
  if (!isJsonContentType(contentType ?? null)) {
    const text = decodeRawBytes(bytes);
    return text === undefined ? PARSE_ERROR : { ok: true, value: text };
  }
  const text = decodeJsonBytes(bytes);
  if (text === undefined) return PARSE_ERROR;
  const parsed = parsePythonJson(text);
  if (parsed.ok) {
    if (!("approximate" in parsed)) return { ok: true, value: parsed.value };
    return { ok: true, value: parsed.value, exact: () => readExactJson(text) };
  }
  if (parsed.reason !== "invalid") return PARSE_ERROR;
  return { ok: false, status: 422, body: validationErrorBody([jsonInvalid(parsed.pos, parsed.msg)]) };
}

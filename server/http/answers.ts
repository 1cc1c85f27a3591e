// FastAPI-shaped answers. Starlette serialises JSON compactly (separators "," and ":"), which
// JSON.stringify does too, so these bodies match the original service byte for byte.

import { FastResponse } from "srvx";
import { JSON_TYPE } from "../../pipeline/domain/published-files.ts";

/**
 * `{ ...headers, [name]: value }` for headers (own string keys), written out. Node 20's V8 makes
 * the copy of an object literal that starts with a spread in its old generation: one made for every
 * request piles up there, and until the next mark-compact it keeps the young objects it points to
 * alive, which scavenges then copy and promote. On the serving path that was 100-170 KB promoted a scavenge and a mark-compact every
 * few seconds under load (docs/performance.md, "The fifth round"); Node 26 makes the copy young.
 */
export function withHeader(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
  value: string,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const key in headers) if (Object.hasOwn(headers, key)) merged[key] = headers[key] as string;
  merged[name] = value;
  return merged;
}

// srvx's FastResponse is written straight to the socket by the Node adapter; a plain Response would
// go through a web stream per request.
export function json(status: number, body: unknown, headers?: Record<string, string>): Response {
  return new FastResponse(JSON.stringify(body), {
    status,
    headers: withHeader(headers, "content-type", JSON_TYPE),
  });
}

/** An answer whose JSON is already written: a failed validation's, or precomputed bytes. */
export function jsonText(
  result: { status: number; body: string | Uint8Array },
  headers?: Record<string, string>,
): Response {
  return new FastResponse(result.body, {
    status: result.status,
    headers: withHeader(headers, "content-type", JSON_TYPE),
  });
}

/** `{"detail": message}` with a status: FastAPI's HTTPException. */
export function detail(status: number, message: string, headers?: Record<string, string>): Response {
  return json(status, { detail: message }, headers);
}

export const notFound = (): Response => detail(404, "Not Found");

export const methodNotAllowed = (allow: readonly string[]): Response =>
  detail(405, "Method Not Allowed", { allow: allow.join(", ") });

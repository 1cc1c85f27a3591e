// FastAPI-shaped answers. Starlette serialises JSON compactly (separators "," and ":"), which
// JSON.stringify does too, so these bodies match the original service byte for byte.

import { FastResponse } from "srvx";
import { JSON_TYPE } from "../../pipeline/domain/published-files.ts";

// srvx's FastResponse is written straight to the socket by the Node adapter; a plain Response would
// go through a web stream per request.
export function json(status: number, body: unknown, headers?: Record<string, string>): Response {
  return new FastResponse(JSON.stringify(body), {
    status,
    headers: { ...headers, "content-type": JSON_TYPE },
  });
}

/** An answer whose JSON is already written: a failed validation's, or precomputed bytes. */
export function jsonText(
  result: { status: number; body: string | Uint8Array },
  headers?: Record<string, string>,
): Response {
  return new FastResponse(result.body, {
    status: result.status,
    headers: { ...headers, "content-type": JSON_TYPE },
  });
}

/** `{"detail": message}` with a status: FastAPI's HTTPException. */
export function detail(status: number, message: string, headers?: Record<string, string>): Response {
  return json(status, { detail: message }, headers);
}

export const notFound = (): Response => detail(404, "Not Found");

export const methodNotAllowed = (allow: readonly string[]): Response =>
  detail(405, "Method Not Allowed", { allow: allow.join(", ") });

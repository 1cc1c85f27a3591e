// FastAPI-shaped answers. Starlette serialises JSON compactly (separators "," and ":"), which
// JSON.stringify does too, so these bodies match the original service byte for byte.

export const JSON_TYPE = "application/json";

export function json(status: number, body: unknown, headers?: Record<string, string>): Response {
  const response = new Response(JSON.stringify(body), { status, headers });
  response.headers.set("content-type", JSON_TYPE);
  return response;
}

/** `{"detail": message}` with a status: FastAPI's HTTPException. */
export function detail(status: number, message: string, headers?: Record<string, string>): Response {
  return json(status, { detail: message }, headers);
}

export const notFound = (): Response => detail(404, "Not Found");

export const methodNotAllowed = (allow: readonly string[]): Response =>
  detail(405, "Method Not Allowed", { allow: allow.join(", ") });

import { createHash } from "node:crypto";
import { FastResponse } from "srvx";

/** A response computed once and served many times: the bytes, their ETag and every header. */
export interface PreparedResponse {
  body: Buffer;
  etag: string;
  headers: Record<string, string>;
}

/** Strong ETag over the bytes: a CDN and the server agree on it for the same file. */
export function etagOf(body: Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}

export function prepare(
  body: Buffer,
  cacheControl: string,
  contentType = "application/json",
): PreparedResponse {
  const etag = etagOf(body);
  return {
    body,
    etag,
    headers: {
      "content-type": contentType,
      "content-length": String(body.byteLength),
      etag,
      "cache-control": cacheControl,
      // Public data: any site may read it from a browser, as it could from the CDN.
      "access-control-allow-origin": "*",
    },
  };
}

/** RFC 9110 If-None-Match: a list of tags or `*`, compared weakly. */
export function matchesIfNoneMatch(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === bare);
}

/** Serves a prepared snapshot: 304 when the client already has it, no body for HEAD. */
export function sendPrepared(
  prepared: PreparedResponse,
  method: string,
  ifNoneMatch: string | null,
): Response {
  if (matchesIfNoneMatch(ifNoneMatch, prepared.etag)) {
    return new FastResponse(null, {
      status: 304,
      headers: { etag: prepared.etag, "cache-control": prepared.headers["cache-control"] as string },
    });
  }
  const body = method === "HEAD" ? null : new Uint8Array(prepared.body);
  return new FastResponse(body, { status: 200, headers: prepared.headers });
}

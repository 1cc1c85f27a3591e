import { createHash } from "node:crypto";
import { FastResponse } from "srvx";
import { type Coding, encode, isCompressible, preferredCoding, type Representation } from "./encoding.ts";

/**
 * A response computed once and served many times: the bytes, their ETag and every header, and its
 * compressed forms, each made on the first request that takes it (null: not worth it).
 */
export interface PreparedResponse extends Representation {
  compressible?: boolean;
  encoded?: Partial<Record<Coding, Representation | null>>;
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
  const compressible = isCompressible(contentType, body.byteLength);
  return {
    body,
    etag,
    compressible,
    headers: {
      "content-type": contentType,
      "content-length": String(body.byteLength),
      etag,
      "cache-control": cacheControl,
      // Public data: any site may read it from a browser, as it could from the CDN.
      "access-control-allow-origin": "*",
      // A cache between here and the client keeps one form per coding.
      ...(compressible ? { vary: "accept-encoding" } : {}),
    },
  };
}

/** The form of `prepared` to send to a client with this Accept-Encoding. */
export function representationFor(
  prepared: PreparedResponse,
  acceptEncoding: string | null | undefined,
): Representation {
  if (!prepared.compressible) return prepared;
  const coding = preferredCoding(acceptEncoding);
  if (coding === undefined) return prepared;
  prepared.encoded ??= {};
  let form = prepared.encoded[coding];
  if (form === undefined) {
    form = encode(prepared, coding);
    prepared.encoded[coding] = form;
  }
  return form ?? prepared;
}

/** The headers of a 304 for `form`: its tag, and what a cache needs to keep using its copy. */
export function notModifiedHeaders(form: Representation): Record<string, string> {
  const { etag, headers } = form;
  return {
    etag,
    "cache-control": headers["cache-control"] as string,
    ...(headers.vary ? { vary: headers.vary } : {}),
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
export function sendPrepared(prepared: PreparedResponse, request: Request): Response {
  const form = representationFor(prepared, request.headers.get("accept-encoding"));
  if (matchesIfNoneMatch(request.headers.get("if-none-match"), form.etag)) {
    return new FastResponse(null, { status: 304, headers: notModifiedHeaders(form) });
  }
  const body = request.method === "HEAD" ? null : new Uint8Array(form.body);
  return new FastResponse(body, { status: 200, headers: form.headers });
}

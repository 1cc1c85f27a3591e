import { createHash } from "node:crypto";
import { FastResponse } from "srvx";
import {
  type Coding,
  encode,
  encodedEtag,
  isCompressible,
  preferredCoding,
  type Representation,
} from "./encoding.ts";

/**
 * A response computed once and served many times: the bytes, their ETag and every header, and its
 * compressed forms, each made on the first request that takes it (null: not worth it).
 */
export interface PreparedResponse extends Representation {
  compressible?: boolean;
  encoded?: Partial<Record<Coding, Representation | null>>;
  /** Called when a compressed form was added, so whoever holds this can weigh it again. */
  onEncoded?: () => void;
}

/** The bytes a prepared answer holds: its body and every compressed form made so far. */
export function heldBytes(prepared: PreparedResponse): number {
  let bytes = prepared.body.byteLength;
  for (const form of Object.values(prepared.encoded ?? {})) bytes += form?.body.byteLength ?? 0;
  return bytes;
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

/** `prepared` with `extra` headers added; made once where an answer is prepared, not per request. */
export function withHeaders(prepared: PreparedResponse, extra: Record<string, string>): PreparedResponse {
  return { ...prepared, headers: { ...prepared.headers, ...extra } };
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
    prepared.onEncoded?.();
  }
  return form ?? prepared;
}

/**
 * The 304 headers when the client already holds the form it would get, decided before anything is
 * compressed: a compressed form's ETag follows from the identity's (encodedEtag). Undefined: send it.
 */
export function notModifiedFor(
  prepared: PreparedResponse,
  acceptEncoding: string | null | undefined,
  ifNoneMatch: string | null | undefined,
): Record<string, string> | undefined {
  if (!ifNoneMatch) return undefined;
  const coding = prepared.compressible ? preferredCoding(acceptEncoding) : undefined;
  const known = coding === undefined ? prepared : prepared.encoded?.[coding];
  // null: compressing did not pay, the identity is sent; undefined: not made yet, its tag is known.
  const etag = known === null ? prepared.etag : (known?.etag ?? encodedEtag(prepared.etag, coding as Coding));
  if (!matchesIfNoneMatch(ifNoneMatch, etag)) return undefined;
  return notModifiedHeaders({ etag, headers: prepared.headers });
}

/** The headers of a 304 for `form`: its tag, and what a cache needs to keep using its copy. */
function notModifiedHeaders(form: Pick<Representation, "etag" | "headers">): Record<string, string> {
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
  const acceptEncoding = request.headers.get("accept-encoding");
  const notModified = notModifiedFor(prepared, acceptEncoding, request.headers.get("if-none-match"));
  if (notModified) return new FastResponse(null, { status: 304, headers: notModified });
  const form = representationFor(prepared, acceptEncoding);
  const body = request.method === "HEAD" ? null : new Uint8Array(form.body);
  return new FastResponse(body, { status: 200, headers: form.headers });
}

// Reads a request body up to a limit. A declared Content-Length over the limit is refused unread; a
// stream is read chunk by chunk and cancelled as soon as it passes the limit, so a body that never ends
// costs at most one chunk beyond it.

import type { IncomingMessage } from "node:http";

export type ReadBodyResult = { ok: true; bytes: Uint8Array } | { ok: false };

function declaredOver(declared: string | null | undefined, maxBytes: number): boolean {
  return typeof declared === "string" && /^\s*\d+\s*$/.test(declared) && Number(declared) > maxBytes;
}

function declaredTooLarge(request: Request, maxBytes: number): boolean {
  return declaredOver(request.headers.get("content-length"), maxBytes);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The Node request under srvx's Request, when there is one. */
export function nodeRequest(request: Request): IncomingMessage | undefined {
  return (request as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
}

/** Node's error for a client that closed its connection before its body ended. */
function clientGone(): Error {
  return Object.assign(new Error("aborted"), { code: "ECONNRESET" });
}

/**
 * A Node request's body, read with its events rather than an async iterator (which costs an object and
 * a promise per chunk). Past `maxBytes` the request is paused and left for the caller's 413, which
 * drains or cuts it; Node's parser holds a declared length to what arrives.
 */
export function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<ReadBodyResult> {
  if (declaredOver(req.headers["content-length"], maxBytes)) return Promise.resolve({ ok: false });
  // Gone before the read began (a route may read its body after a store call): its events are past.
  if (req.destroyed) return Promise.reject(clientGone());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total <= maxBytes) return void chunks.push(chunk);
      settle();
      req.pause();
      resolve({ ok: false });
    };
    const onEnd = () => {
      settle();
      resolve({ ok: true, bytes: concat(chunks, total) });
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    // Node emits its own "aborted" error first; a close without it still ends the read.
    const onClose = () => onError(clientGone());
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** The body's bytes, or `{ ok: false }` when it is larger than `maxBytes`. */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<ReadBodyResult> {
  // On a Node request, read its stream directly: a web stream per request costs more than the rest of
  // a small request. readNodeBody holds the declared length and the chunks to the limit itself.
  const node = nodeRequest(request);
  if (node) return readNodeBody(node, maxBytes);
  if (declaredTooLarge(request, maxBytes)) return { ok: false };
  const body = request.body;
  if (body === null) return { ok: true, bytes: new Uint8Array(0) };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Not awaited: a source that ignores cancellation must not hold the answer back.
      reader.cancel().catch(() => {});
      return { ok: false };
    }
    chunks.push(value);
  }
  return { ok: true, bytes: concat(chunks, total) };
}

// Reads a request body up to a limit. A declared Content-Length over the limit is refused unread; a
// stream is read chunk by chunk and cancelled as soon as it passes the limit, so a body that never ends
// costs at most one chunk beyond it.

export type ReadBodyResult = { ok: true; bytes: Uint8Array } | { ok: false };

function declaredTooLarge(request: Request, maxBytes: number): boolean {
  const declared = request.headers.get("content-length");
  return declared !== null && /^\s*\d+\s*$/.test(declared) && Number(declared) > maxBytes;
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
function nodeRequest(request: Request): AsyncIterable<Uint8Array> | undefined {
  return (request as { runtime?: { node?: { req?: AsyncIterable<Uint8Array> } } }).runtime?.node?.req;
}

/** The body's bytes, or `{ ok: false }` when it is larger than `maxBytes`. */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<ReadBodyResult> {
  if (declaredTooLarge(request, maxBytes)) return { ok: false };
  // With a declared length within the limit (Node's parser holds the client to it), read the Node
  // stream directly: a web stream per request costs more than the rest of a small request.
  const node = request.headers.has("content-length") ? nodeRequest(request) : undefined;
  if (node) {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of node) {
      chunks.push(chunk);
      total += chunk.byteLength;
    }
    return total > maxBytes ? { ok: false } : { ok: true, bytes: concat(chunks, total) };
  }
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

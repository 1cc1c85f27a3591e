import type { IncomingMessage, ServerResponse } from "node:http";
import type { SnapshotCache } from "../snapshots/snapshot-cache.ts";
import { notModifiedFor, representationFor } from "./prepared.ts";

/**
 * Answers GET and HEAD for published snapshots straight from memory, before a request enters the
 * router: the same bytes and headers the app's own routes send, at close to bare node:http speed.
 * Returns false when the request is not a snapshot hit; the app then answers it (and its errors).
 */
export function serveSnapshotFast(
  snapshots: SnapshotCache,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  const method = req.method;
  if (method !== "GET" && method !== "HEAD") return false;
  const url = req.url ?? "";
  const query = url.indexOf("?");
  const prepared = snapshots.lookup(query === -1 ? url : url.slice(0, query));
  if (!prepared) return false;
  const acceptEncoding = req.headers["accept-encoding"];
  const notModified = notModifiedFor(prepared, acceptEncoding, req.headers["if-none-match"]);
  if (notModified) {
    res.writeHead(304, notModified);
    res.end();
    return true;
  }
  const form = representationFor(prepared, acceptEncoding);
  res.writeHead(200, form.headers);
  res.end(method === "HEAD" ? undefined : form.body);
  return true;
}

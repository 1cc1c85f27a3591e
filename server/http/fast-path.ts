import type { IncomingMessage, ServerResponse } from "node:http";
import type { SnapshotCache } from "../snapshots/snapshot-cache.ts";
import { matchesIfNoneMatch } from "./prepared.ts";

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
  if (matchesIfNoneMatch(req.headers["if-none-match"], prepared.etag)) {
    res.writeHead(304, { etag: prepared.etag, "cache-control": prepared.headers["cache-control"] });
    res.end();
    return true;
  }
  res.writeHead(200, prepared.headers);
  res.end(method === "HEAD" ? undefined : prepared.body);
  return true;
}

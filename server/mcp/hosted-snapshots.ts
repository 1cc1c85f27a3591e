import type { SnapshotCache } from "../snapshots/snapshot-cache.ts";
import { type McpSnapshots, picksOfId } from "./fresh-snapshots.ts";

/**
 * The MCP tools' view of the snapshots a running server already holds: no second copy in memory. The
 * cache's own watcher reloads it shortly after a day is published. Messages name no server path: the
 * caller of a hosted server cannot see its disk.
 */
export function createHostedSnapshots(cache: SnapshotCache): McpSnapshots {
  return {
    where: "this server's published snapshots",
    load: async () => {},
    refresh: () => cache.ready(),
    days: () => cache.days(),
    picksOf: (arxivId) => picksOfId(cache.days(), arxivId),
    fullPicks: (items) => cache.fullPicks(items),
    readScreened: (date) => cache.readScreened(date),
    file: (name) => cache.lookup(`/v1/${name}`)?.body,
    // The cache belongs to the server, which closes it.
    close: () => {},
  };
}

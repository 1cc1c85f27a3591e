import { join } from "node:path";
import type { SnapshotCache } from "../snapshots/snapshot-cache.ts";
import { folderSignature, type McpSnapshots, picksOfId } from "./fresh-snapshots.ts";

/**
 * The MCP tools' view of the snapshots a running server already holds: no second copy in memory.
 * With `publicDir`, every tool call looks at the folder as `picks mcp` does and reloads the shared
 * cache at once when a day was published; without it, the cache's own watcher reloads it shortly
 * after. Messages name no server path: the caller of a hosted server cannot see its disk.
 */
export function createHostedSnapshots(
  cache: SnapshotCache,
  options: { publicDir?: string } = {},
): McpSnapshots {
  const v1 = options.publicDir === undefined ? undefined : join(options.publicDir, "v1");
  let seen: Promise<string> | undefined;
  return {
    where: "this server's published snapshots",
    load: async () => {},
    async refresh() {
      await cache.ready();
      if (v1 === undefined) return;
      seen ??= folderSignature(v1);
      const before = await seen;
      const now = await folderSignature(v1);
      if (now === before) return;
      seen = Promise.resolve(now);
      await cache.reload();
    },
    days: () => cache.days(),
    picksOf: (arxivId) => picksOfId(cache.days(), arxivId),
    fullPicks: (items) => cache.fullPicks(items),
    readScreened: (date) => cache.readScreened(date),
    file: (name) => cache.lookup(`/v1/${name}`)?.body,
    // The cache belongs to the server, which closes it.
    close: () => {},
  };
}

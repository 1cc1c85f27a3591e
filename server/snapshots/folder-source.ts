import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import { publishedHeaders } from "../../pipeline/domain/published-files.ts";
import { createFolderOrigin } from "../../pipeline/origin/folder-origin.ts";
import type { SnapshotSource, SourceEntry } from "./snapshot-source.ts";

/**
 * The published folder on this machine. A change is seen by fs.watch on the site root, `v1` and
 * `v1/daily` (the feeds are written at the root, after the snapshots), and by a slow poll for the
 * folders fs.watch cannot watch yet.
 */
export function createFolderSource(publicDir: string): SnapshotSource {
  const origin = createFolderOrigin({ dir: publicDir });
  const v1 = join(publicDir, "v1");
  const stops = new Set<() => void>();
  return {
    async listing() {
      const files = new Map<string, SourceEntry>();
      for (const entry of await origin.list("")) {
        if (publishedHeaders(entry.key) === undefined) continue;
        files.set(entry.key, { ...entry, version: `${entry.size}:${entry.modifiedMs}` });
      }
      return files;
    },
    read: (key) => origin.read(key),
    stream: (key) => origin.readStream(key),
    watch(onChange) {
      let watchers: FSWatcher[] = [];
      let timer: NodeJS.Timeout | undefined;
      const schedule = () => {
        clearTimeout(timer);
        // A failed reload is logged by the cache; the next change of the folder tries again.
        timer = setTimeout(() => void onChange().catch(() => {}), 50);
      };
      const watched = [publicDir, v1, join(v1, "daily")];
      const startWatching = () => {
        for (const dir of watched) {
          try {
            const watcher = watch(dir, { persistent: false }, schedule);
            watcher.on("error", () => watcher.close());
            watchers.push(watcher);
          } catch {
            // The folder does not exist yet; the first curate run creates it and the poll below notices.
          }
        }
      };
      startWatching();
      // fs.watch misses events on some file systems and cannot watch a folder created later: a slow
      // poll of the folder list covers both.
      const poll = setInterval(() => {
        if (watchers.length < watched.length) {
          for (const watcher of watchers) watcher.close();
          watchers = [];
          startWatching();
          if (watchers.length > 0) schedule();
        }
      }, 2000);
      poll.unref();
      const stop = () => {
        clearTimeout(timer);
        clearInterval(poll);
        for (const watcher of watchers) watcher.close();
        stops.delete(stop);
      };
      stops.add(stop);
      return stop;
    },
    // The folder's path is not shown: `/health` is public.
    status: () => ({
      kind: "folder",
      origin: "folder",
      last_poll_at: null,
      manifest_newest_day: null,
      stale_seconds: null,
      problem: null,
      refused: [],
      publish: null,
    }),
    close() {
      for (const stop of [...stops]) stop();
    },
  };
}

import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { PaperListItem } from "../../pipeline/domain/api-answers.ts";
import { baseArxivId } from "../../pipeline/domain/arxiv-id.ts";
import type { Pick } from "../../pipeline/domain/pick.ts";
import type { ScreenedDay } from "../../pipeline/domain/screened.ts";
import type { HeldDay } from "../snapshots/held-days.ts";
import { createSnapshotCache, type SnapshotCache } from "../snapshots/snapshot-cache.ts";

/** The published snapshots as the MCP tools read them: always as fresh as the folder. */
export interface McpSnapshots {
  /** Where the snapshots are read from, as messages name it: `/srv/site/public/v1`, or `this server`. */
  readonly where: string;
  /** Starts the first load unless it has started; settles when it is done. */
  load(): Promise<void>;
  /**
   * Waits for the first load, then reloads when the folder changed since the last look. Call it at the
   * start of every tool call, before any of the readers below.
   */
  refresh(): Promise<void>;
  /** Published days, newest first, their picks as list items. */
  days(): readonly HeldDay[];
  /** Every pick of an arXiv id (versionless), newest day first. */
  picksOf(arxivId: string): readonly PaperListItem[];
  /** The published picks of list items of `days()` or `picksOf()`, read back from their days' files. */
  fullPicks(items: readonly PaperListItem[]): Promise<Pick[]>;
  /** A published day's screened file; undefined for a day without one. Throws DayUnavailableError. */
  readScreened(date: string): Promise<ScreenedDay | undefined>;
  /** The bytes of `stats.json` or `axes.json`, if published. */
  file(name: "stats" | "axes"): Buffer | undefined;
  close(): void;
}

// `curate` publishes by renaming temporary files into v1/ and v1/daily/, and a rename changes the
// folder's modification time. Two stat calls per tool call (tens of microseconds) therefore see any
// new publication at once, where the cache's watcher alone would answer the next call up to its
// debounce late; the watcher still catches writes that land within one timestamp tick of a look.
async function folderSignature(v1: string): Promise<string> {
  const times = await Promise.all(
    [v1, join(v1, "daily")].map((dir) =>
      stat(dir, { bigint: true }).then(
        (info) => `${info.mtimeNs}:${info.ctimeNs}`,
        () => "missing",
      ),
    ),
  );
  return times.join("|");
}

// One index per loaded generation: the cache swaps its day list whole, so identity marks a reload.
const indexes = new WeakMap<readonly HeldDay[], Map<string, PaperListItem[]>>();

/** Every pick of an arXiv id (versionless) in `days`, newest day first; indexed once per generation. */
export function picksOfId(days: readonly HeldDay[], arxivId: string): readonly PaperListItem[] {
  let index = indexes.get(days);
  if (!index) {
    index = indexPicks(days);
    indexes.set(days, index);
  }
  return index.get(arxivId) ?? [];
}

function indexPicks(days: readonly HeldDay[]): Map<string, PaperListItem[]> {
  const index = new Map<string, PaperListItem[]>();
  for (const day of days) {
    for (const pick of day.picks) {
      const id = baseArxivId(pick.arxiv_id);
      const list = index.get(id);
      if (list) list.push(pick);
      else index.set(id, [pick]);
    }
  }
  return index;
}

/**
 * Reads `{publicDir}/v1` through the shared snapshot cache, watching it and re-checking on each call.
 * Nothing is read until `load()` or the first `refresh()`: a client's handshake and tools/list need no
 * snapshot, and a year of them takes a few hundred milliseconds to parse.
 */
export function createMcpSnapshots(options: {
  publicDir: string;
  log?: (message: string) => void;
}): McpSnapshots {
  const v1 = join(options.publicDir, "v1");
  let seen = "";
  let cache: SnapshotCache | undefined;
  let closed = false;
  let loading: Promise<void> | undefined;
  const load = () => {
    loading ??= (async () => {
      seen = await folderSignature(v1);
      cache = await createSnapshotCache({ publicDir: options.publicDir, watch: true, log: options.log });
      if (closed) cache.close();
    })();
    return loading;
  };
  const loaded = (): SnapshotCache => {
    if (!cache) throw new Error("snapshots read before refresh() finished the first load");
    return cache;
  };
  return {
    where: v1,
    load,
    async refresh() {
      await load();
      const now = await folderSignature(v1);
      if (now === seen) return;
      seen = now;
      await loaded().reload();
    },
    days: () => loaded().days(),
    picksOf: (arxivId) => picksOfId(loaded().days(), arxivId),
    fullPicks: (items) => loaded().fullPicks(items),
    readScreened: (date) => loaded().readScreened(date),
    file: (name) => loaded().lookup(`/v1/${name}`)?.body,
    close() {
      closed = true;
      cache?.close();
    },
  };
}

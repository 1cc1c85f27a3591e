import { type FSWatcher, watch } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Pick } from "../../pipeline/domain/pick.ts";
import { type DailySnapshot, DailySnapshotSchema } from "../../pipeline/domain/snapshot.ts";
import { type PreparedResponse, prepare } from "../http/prepared.ts";
import { readOptional } from "./read-optional.ts";
import { loadStaticSite } from "./static-site.ts";

// Dated days can still change (a rerun, refreshed citation figures), so even they are cached for
// an hour rather than forever; the moving files for five minutes.
const CACHE_MOVING = "public, max-age=300";
const CACHE_DATED = "public, max-age=3600";

/** The published snapshot files held in memory, ready to serve, and reloaded when they change. */
export interface SnapshotCache {
  /**
   * The prepared answer for an API path such as `/v1/daily/2026-11-20`, or a static site path (`/`,
   * `/assets/app.js`, `/feed.xml`), if that file exists.
   */
  lookup(pathname: string): PreparedResponse | undefined;
  /** Published days, newest first. */
  days(): readonly DailySnapshot[];
  /** A pick with its evidence, whichever way the days are held. */
  fullPick(pick: Pick): Pick;
  latestDate(): string | null;
  reload(): Promise<void>;
  /** Calls `listener` after each successful reload (webhooks announce new days from it). */
  onReload?(listener: () => void): () => void;
  close(): void;
}

const FIXED_FILES: ReadonlyArray<[string, string]> = [
  ["/v1/daily/latest", "daily/latest.json"],
  ["/v1/recent", "recent.json"],
  ["/v1/stats", "stats.json"],
  ["/v1/axes", "axes.json"],
];

// Evidence is most of a snapshot's weight, and only a full pick (`/v1/papers/{id}`) shows it: a
// server can hold the days without it and read one pick back from the day's bytes when asked.
// Emptied after a plain parse: a JSON.parse reviver, called for every value, is several times slower.
function dropEvidence(day: unknown): unknown {
  const picks = (day as { picks?: unknown } | undefined)?.picks;
  if (!Array.isArray(picks)) return day;
  for (const pick of picks) {
    const scores = (pick as { scores?: Record<string, unknown> } | null)?.scores;
    if (!scores || typeof scores !== "object") continue;
    const parts = [
      ...Object.values((scores.axes ?? {}) as Record<string, unknown>),
      scores.reg_fit,
      scores.focus,
    ];
    for (const part of parts) {
      if (part && typeof part === "object" && Array.isArray((part as { evidence?: unknown }).evidence)) {
        (part as { evidence: unknown[] }).evidence = [];
      }
    }
  }
  return day;
}

async function load(publicDir: string, log: (message: string) => void, keepEvidence: boolean) {
  const v1 = join(publicDir, "v1");
  const responses = await loadStaticSite(publicDir, log);
  for (const [route, file] of FIXED_FILES) {
    const body = await readOptional(join(v1, file));
    if (body) responses.set(route, prepare(body, CACHE_MOVING));
  }
  const days: DailySnapshot[] = [];
  const names = await readdir(join(v1, "daily")).catch(() => [] as string[]);
  for (const name of names.filter((entry) => /^\d{4}-\d{2}-\d{2}\.json$/.test(entry))) {
    const body = await readOptional(join(v1, "daily", name));
    if (!body) continue;
    const json = safeJson(body);
    const parsed = DailySnapshotSchema.safeParse(keepEvidence ? json : dropEvidence(json));
    if (!parsed.success) {
      log(`ignoring ${name}: not a valid daily snapshot`);
      continue;
    }
    days.push(parsed.data);
    responses.set(`/v1/daily/${name.slice(0, 10)}`, prepare(body, CACHE_DATED));
  }
  days.sort((a, b) => (a.date < b.date ? 1 : -1));
  return { responses, days };
}

function safeJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Loads `{publicDir}/v1` and the static site beside it and, with `watch`, reloads them shortly after a
 * file in the site root, `v1` or `v1/daily` changes (assets are read at start and at each reload).
 * Readers always see a complete generation: the maps are swapped whole, never mutated in place.
 */
export async function createSnapshotCache(options: {
  publicDir: string;
  watch?: boolean;
  log?: (message: string) => void;
  /** Hold the days with their evidence (default). Without, `fullPick` reads a pick back from its file. */
  keepEvidence?: boolean;
}): Promise<SnapshotCache> {
  const keepEvidence = options.keepEvidence ?? true;
  const v1 = join(options.publicDir, "v1");
  const log = options.log ?? (() => {});
  let state = await load(options.publicDir, log, keepEvidence);
  let watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let reloading: Promise<void> = Promise.resolve();
  const reloaded = new Set<() => void>();

  const reload = (): Promise<void> => {
    reloading = reloading.then(async () => {
      state = await load(options.publicDir, log, keepEvidence);
      for (const listener of reloaded) listener();
    });
    return reloading;
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void reload().catch((error) => log(`reload failed: ${error}`)), 50);
  };
  // The site root too: the feeds are written there, after the snapshots.
  const watched = [options.publicDir, v1, join(v1, "daily")];
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
  let poll: NodeJS.Timeout | undefined;
  if (options.watch) {
    startWatching();
    // fs.watch misses events on some file systems and cannot watch a folder created later: a slow
    // poll of the folder list covers both.
    poll = setInterval(() => {
      if (watchers.length < watched.length) {
        for (const watcher of watchers) watcher.close();
        watchers = [];
        startWatching();
        if (watchers.length > 0) schedule();
      }
    }, 2000);
    poll.unref();
  }

  return {
    lookup: (pathname) => state.responses.get(pathname),
    days: () => state.days,
    fullPick(pick) {
      if (keepEvidence) return pick;
      const body = state.responses.get(`/v1/daily/${pick.date}`)?.body;
      const day = body ? (safeJson(body) as DailySnapshot | undefined) : undefined;
      return day?.picks.find((candidate) => candidate.arxiv_id === pick.arxiv_id) ?? pick;
    },
    latestDate: () => state.days[0]?.date ?? null,
    reload,
    onReload(listener) {
      reloaded.add(listener);
      return () => reloaded.delete(listener);
    },
    close() {
      clearTimeout(timer);
      clearInterval(poll);
      for (const watcher of watchers) watcher.close();
    },
  };
}

import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import type { PaperListItem } from "../../pipeline/domain/api-answers.ts";
import type { Pick } from "../../pipeline/domain/pick.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import { createBoundedCache } from "../bounded-cache.ts";
import { heldBytes, type PreparedResponse, prepare } from "../http/prepared.ts";
import { type DayProblem, dayFileNames, type HeldDay, loadHeldDays, parseDay } from "./held-days.ts";
import { readOptional } from "./read-optional.ts";
import { loadStaticSite } from "./static-site.ts";

// Dated days can still change (a rerun, refreshed citation figures), so even they are cached for
// an hour rather than forever; the moving files for five minutes.
const CACHE_MOVING = "public, max-age=300";
const CACHE_DATED = "public, max-age=3600";

// Memory follows these, not the length of the history: the newest days' bytes are held ready to
// send (nearly every read asks for them), older days are read from their files when asked and kept
// in a bounded cache; the OS page cache keeps the files themselves warm.
export const RECENT_DAYS = 31;
/** Older days read from their files, their compressed forms included. */
export const OLDER_DAY_BYTES = 8 * 1024 * 1024;
const PARSED_DAYS = 32;

/** The published snapshot files held in memory, ready to serve, and reloaded when they change. */
export interface SnapshotCache {
  /**
   * The prepared answer for an API path such as `/v1/daily/2026-11-20`, or a static site path (`/`,
   * `/assets/app.js`, `/feed.xml`), if it is held: synchronous, for the fast path. An older day may
   * not be held; `read` finds it.
   */
  lookup(pathname: string): PreparedResponse | undefined;
  /** As `lookup`, and also reads an older day from its file. */
  read(pathname: string): Promise<PreparedResponse | undefined>;
  /** Published days, newest first, as list items; empty until `ready()` settles. */
  days(): readonly HeldDay[];
  /** Settles when the history is loaded (at once unless created with `background`). */
  ready(): Promise<void>;
  /**
   * The published picks behind list items of `days()`, with summary and evidence, read back from
   * their days' files. Throws when a day's file can no longer be read.
   */
  fullPicks(items: readonly PaperListItem[]): Promise<Pick[]>;
  /** A day of `days()` in full, read back from its file. Throws when it can no longer be read. */
  readDay(date: string): Promise<DailySnapshot>;
  latestDate(): string | null;
  /** Day files left out at the last load, and why. */
  problems(): readonly DayProblem[];
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
  ["/v1/ranker", "ranker.json"],
];

/** A day's file could not be read back, or is no longer a snapshot, after it was loaded. */
export class DayUnavailableError extends Error {}

const DAY_PATH = /^\/v1\/daily\/(\d{4}-\d{2}-\d{2})$/;

/** What is served without the history: the site, the moving files and the newest days' bytes. */
async function loadFront(publicDir: string, log: (message: string) => void) {
  const v1 = join(publicDir, "v1");
  const responses = await loadStaticSite(publicDir, log);
  for (const [route, file] of FIXED_FILES) {
    const body = await readOptional(join(v1, file));
    if (body) responses.set(route, prepare(body, CACHE_MOVING));
  }
  const names = await dayFileNames(v1);
  for (const name of names.slice(0, RECENT_DAYS)) {
    const body = await readOptional(join(v1, "daily", name));
    if (body) responses.set(`/v1/daily/${name.slice(0, 10)}`, prepare(body, CACHE_DATED));
  }
  return { responses, names };
}

type Front = Awaited<ReturnType<typeof loadFront>>;

async function load(publicDir: string, log: (message: string) => void, front?: Front) {
  const v1 = join(publicDir, "v1");
  const { responses, names } = front ?? (await loadFront(publicDir, log));
  const { days, problems } = await loadHeldDays(v1, names, log);
  for (const problem of problems) responses.delete(`/v1/daily/${problem.file.slice(0, 10)}`);
  return generation(responses, days, problems, days[0]?.date ?? null);
}

function generation(
  responses: Map<string, PreparedResponse>,
  days: HeldDay[],
  problems: DayProblem[],
  latest: string | null,
) {
  return {
    responses,
    days,
    dates: new Set(days.map((day) => day.date)),
    problems,
    latest,
    // Per generation: a reload may have replaced any file.
    older: createBoundedCache<string, PreparedResponse>(OLDER_DAY_BYTES, heldBytes),
    parsed: createBoundedCache<string, Promise<DailySnapshot>>(PARSED_DAYS),
  };
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
  /**
   * Settle as soon as the site, the moving files and the newest days can be served, and read the
   * history behind them (`ready()`) in the background: a server answers within its first second
   * whatever the length of the history.
   */
  background?: boolean;
}): Promise<SnapshotCache> {
  const v1 = join(options.publicDir, "v1");
  const log = options.log ?? (() => {});
  const front = await loadFront(options.publicDir, log);
  let state = generation(front.responses, [], [], front.names[0]?.slice(0, 10) ?? null);
  const loaded = load(options.publicDir, log, front).then((full) => {
    state = full;
  });
  if (options.background) loaded.catch((error) => log(`loading the published days failed: ${error}`));
  else await loaded;
  let watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let reloading: Promise<void> = loaded;
  const reloaded = new Set<() => void>();

  const reload = (): Promise<void> => {
    // After a failed reload the next one still runs: the chain never stays rejected.
    reloading = reloading
      .catch(() => {})
      .then(async () => {
        state = await load(options.publicDir, log);
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

  const read = async (pathname: string): Promise<PreparedResponse | undefined> => {
    const held = state.responses.get(pathname) ?? state.older.get(pathname);
    if (held) return held;
    // The history (and any reload in progress) first; a failed load leaves the last good generation.
    await reloading.catch(() => {});
    const current = state;
    const date = DAY_PATH.exec(pathname)?.[1];
    if (date === undefined || !current.dates.has(date)) return undefined;
    const body = await readOptional(join(v1, "daily", `${date}.json`));
    if (!body) return undefined;
    const prepared = prepare(body, CACHE_DATED);
    // A compressed form, once made, is kept with the day and counted in the budget: it is the costly part.
    prepared.onEncoded = () => {
      if (current.older.get(pathname) === prepared) current.older.set(pathname, prepared);
    };
    return current.older.set(pathname, prepared);
  };

  // Called with list items of `days()`, so the history is loaded.
  const dayOf = (date: string): Promise<DailySnapshot> => {
    const current = state;
    const known = current.parsed.get(date);
    if (known) return known;
    const parsing = read(`/v1/daily/${date}`).then((prepared) => {
      const day = prepared ? parseDay(prepared.body) : { problem: "no longer on disk" };
      if ("problem" in day)
        throw new DayUnavailableError(`the published day ${date} cannot be read: ${day.problem}`);
      return day;
    });
    // A failure is not kept: the next call tries the file again.
    parsing.catch(() => current.parsed.delete(date));
    return current.parsed.set(date, parsing);
  };

  return {
    lookup: (pathname) => state.responses.get(pathname) ?? state.older.get(pathname),
    read,
    days: () => state.days,
    async fullPicks(items) {
      const days = await Promise.all([...new Set(items.map((item) => item.date))].map(dayOf));
      const byDate = new Map(days.map((day) => [day.date, day]));
      return items.map((item) => {
        const pick = byDate.get(item.date)?.picks.find((candidate) => candidate.arxiv_id === item.arxiv_id);
        if (!pick)
          throw new DayUnavailableError(`${item.arxiv_id} is no longer in the published day ${item.date}`);
        return pick;
      });
    },
    readDay: dayOf,
    latestDate: () => state.latest,
    // The newest load: after a failed first one, a later reload that succeeds makes the cache ready.
    ready: () => reloading,
    problems: () => state.problems,
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

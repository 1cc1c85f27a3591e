import { LRUCache } from "lru-cache";
import type { PaperListItem, SnapshotOriginStatus } from "../../pipeline/domain/api-answers.ts";
import type { Pick } from "../../pipeline/domain/pick.ts";
import { CACHE_DATED, CACHE_MOVING } from "../../pipeline/domain/published-files.ts";
import { parseScreenedDay, type ScreenedDay, screenedKey } from "../../pipeline/domain/screened.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import { IntegrityError } from "../../pipeline/origin/origin.ts";
import { heldBytes, type PreparedResponse, prepare } from "../http/prepared.ts";
import { createFolderSource } from "./folder-source.ts";
import {
  type DayProblem,
  dayFileNames,
  type HeldDay,
  type HeldDaysPlan,
  type HeldDayVersion,
  parseDay,
  planHeldDays,
  readHeldDays,
} from "./held-days.ts";
import { type HeldFile, type LoadView, openLoadView } from "./load-view.ts";
import type { SnapshotSource } from "./snapshot-source.ts";
import { loadStaticSite } from "./static-site.ts";

// Memory follows these, not the length of the history: the newest days' bytes are held ready to
// send (nearly every read asks for them), older days are read from their files when asked and kept
// in a bounded cache; from a folder, the OS page cache keeps the files themselves warm.
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
  /**
   * The screened file of a day of `days()`, or undefined when none is published (days curated before
   * screened files existed). Throws DayUnavailableError when it cannot be read or is not one.
   */
  readScreened(date: string): Promise<ScreenedDay | undefined>;
  latestDate(): string | null;
  /** Day files left out at the last load, and why. */
  problems(): readonly DayProblem[];
  reload(): Promise<void>;
  /** Calls `listener` after each successful reload (webhooks announce new days from it). */
  onReload?(listener: () => void): () => void;
  /** Where the files come from and how the last look at them went (`/health`). */
  origin(): SnapshotOriginStatus;
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

// A dated file: a day's picks, or its screened candidates, read from its file when not held.
const DAY_PATH = /^\/v1\/(daily|screened)\/(\d{4}-\d{2}-\d{2})$/;
/** Screened files parsed for the API: each is a few hundred kilobytes of JSON, so a few weeks of them. */
const PARSED_SCREENED = 32;

/** What is served without the history: the site, the moving files and the newest days' bytes. */
async function loadFront(
  source: SnapshotSource,
  previous: ReadonlyMap<string, HeldFile>,
  log: (m: string) => void,
) {
  const view = await openLoadView(source, previous);
  const responses = await loadStaticSite(view, log);
  for (const [route, file] of FIXED_FILES) {
    const prepared = await view.hold(`v1/${file}`, (body) => prepare(body, CACHE_MOVING));
    if (prepared) responses.set(route, prepared);
  }
  const names = dayFileNames(view.listing);
  for (const name of names.slice(0, RECENT_DAYS)) {
    const prepared = await view.hold(`v1/daily/${name}`, (body) => prepare(body, CACHE_DATED));
    if (prepared) responses.set(`/v1/daily/${name.slice(0, 10)}`, prepared);
  }
  return { responses, names, view };
}

type Front = Awaited<ReturnType<typeof loadFront>>;

/** A generation of the whole history: what `plan` found, with its day files read in full. */
async function load(front: Front, plan: HeldDaysPlan, log: (message: string) => void, closed: () => boolean) {
  const { responses, view } = front;
  const { days, problems, versions } = await readHeldDays(view, plan, log, closed);
  for (const problem of problems) responses.delete(`/v1/daily/${problem.file.slice(0, 10)}`);
  return generation(view, days, problems, days[0]?.date ?? null, versions, responses);
}

function generation(
  view: Readonly<Omit<LoadView, "hold" | "read" | "stream">>,
  days: HeldDay[],
  problems: DayProblem[],
  latest: string | null,
  versions: ReadonlyMap<string, HeldDayVersion>,
  responses: Map<string, PreparedResponse>,
) {
  return {
    responses,
    held: view.held as ReadonlyMap<string, HeldFile>,
    /** The load's listing: the version of each file, for the older days kept across reloads. */
    listing: view.listing,
    days,
    dates: new Set(days.map((day) => day.date)),
    problems,
    latest,
    // Per generation: a reload may have replaced any file.
    parsed: new LRUCache<string, Promise<DailySnapshot>>({ max: PARSED_DAYS }),
    /** The days' list items by the version of their files, for the next load to keep. */
    versions,
    screened: new LRUCache<string, Promise<ScreenedDay | undefined>>({ max: PARSED_SCREENED }),
  };
}

/**
 * Loads the published files (a folder's `v1` and the site beside it, or a bucket's) and, with `watch`,
 * reloads them when the source says they changed. Readers always see a complete generation: the maps
 * are swapped whole, never mutated in place; a file a reload finds unchanged is not read again.
 */
export async function createSnapshotCache(options: {
  /** The published folder; shorthand for `source: createFolderSource(publicDir)`. */
  publicDir?: string;
  source?: SnapshotSource;
  watch?: boolean;
  log?: (message: string) => void;
  /**
   * Settle as soon as the site, the moving files, the newest days and the picks index can be served,
   * and read the day files the index does not describe (`ready()`) in the background: a server
   * answers within its first second whatever the length of the history. Ten years of index take
   * about 0.1 s; reading every day in full, without it, takes seconds.
   */
  background?: boolean;
}): Promise<SnapshotCache> {
  const source =
    options.source ??
    createFolderSource(
      options.publicDir ??
        (() => {
          throw new Error("createSnapshotCache needs a publicDir or a source");
        })(),
    );
  const log = options.log ?? (() => {});
  const front = await loadFront(source, new Map(), log);
  let state = generation(
    front.view,
    [],
    [],
    front.names[0]?.slice(0, 10) ?? null,
    new Map(),
    front.responses,
  );
  let closed = false;
  const plan = await planHeldDays(front.view, front.names, log);
  const loaded = load(front, plan, log, () => closed).then((full) => {
    state = full;
  });
  if (options.background && plan.reads.length > 0) {
    loaded.catch((error) => log(`loading the published days failed: ${error}`));
  } else await loaded;
  let reloading: Promise<void> = loaded;
  const reloaded = new Set<() => void>();

  const reload = (): Promise<void> => {
    // After a failed reload the next one still runs: the chain never stays rejected.
    reloading = reloading
      .catch(() => {})
      .then(async () => {
        const front = await loadFront(source, state.held, log);
        const plan = await planHeldDays(front.view, front.names, log, state.versions);
        state = await load(front, plan, log, () => closed);
        for (const listener of reloaded) listener();
      });
    return reloading;
  };
  const stopWatching = options.watch
    ? source.watch(() =>
        reload().catch((error) => {
          log(`reload failed: ${error}`);
          throw error;
        }),
      )
    : () => {};

  // Older days read from their files, kept across reloads while their file's version is the same: a
  // reload costs no re-read, and a file changed in the bucket since keeps its last good copy.
  const older = new LRUCache<string, { version: string; prepared: PreparedResponse }>({
    maxSize: OLDER_DAY_BYTES,
    sizeCalculation: (held) => Math.max(1, heldBytes(held.prepared)),
  });
  const versionOf = (pathname: string): string | undefined => {
    const [, folder, date] = DAY_PATH.exec(pathname) ?? [];
    return date === undefined ? undefined : state.listing.get(`v1/${folder}/${date}.json`)?.version;
  };
  const olderDay = (pathname: string): PreparedResponse | undefined => {
    const held = older.get(pathname);
    return held !== undefined && versionOf(pathname) === held.version ? held.prepared : undefined;
  };

  const read = async (pathname: string): Promise<PreparedResponse | undefined> => {
    const held = state.responses.get(pathname) ?? olderDay(pathname);
    if (held) return held;
    // The history (and any reload in progress) first; a failed load leaves the last good generation.
    await reloading.catch(() => {});
    const current = state;
    const [, folder, date] = DAY_PATH.exec(pathname) ?? [];
    if (date === undefined || !current.dates.has(date)) return undefined;
    // A day gone is a 404; a store out of reach is an error, never a 404 a CDN would keep; bytes that
    // are not the manifest's are refused (and named in `/health`), never served.
    let body: Buffer | undefined;
    try {
      body = await source.read(`v1/${folder}/${date}.json`);
    } catch (error) {
      if (!(error instanceof IntegrityError)) throw error;
      throw new DayUnavailableError(
        `The published ${folder === "daily" ? "day" : "screened file of"} ${date} is unavailable: its file in the bucket is not the one the manifest names`,
      );
    }
    if (!body) return undefined;
    const prepared = prepare(body, CACHE_DATED);
    const version = current.listing.get(`v1/${folder}/${date}.json`)?.version;
    if (version === undefined) return prepared;
    const entry = { version, prepared };
    // A compressed form, once made, is kept with the day and counted in the budget: it is the costly part.
    prepared.onEncoded = () => {
      if (older.get(pathname) === entry) older.set(pathname, entry);
    };
    older.set(pathname, entry);
    return prepared;
  };

  // Called with list items of `days()`, so the history is loaded.
  const dayOf = (date: string): Promise<DailySnapshot> => {
    const current = state;
    const known = current.parsed.get(date);
    if (known) return known;
    const parsing = read(`/v1/daily/${date}`).then((prepared) => {
      const day = prepared ? parseDay(prepared.body) : { problem: "no longer published" };
      if ("problem" in day)
        throw new DayUnavailableError(`the published day ${date} cannot be read: ${day.problem}`);
      return day;
    });
    // A failure is not kept: the next call tries the file again.
    parsing.catch(() => current.parsed.delete(date));
    current.parsed.set(date, parsing);
    return parsing;
  };

  // Read for the API's screened scope straight from the source (or the bytes a reader's fetch left in
  // memory), so a wide query does not push the readers' older days out of their cache.
  const screenedOf = (date: string): Promise<ScreenedDay | undefined> => {
    const current = state;
    const known = current.screened.get(date);
    if (known) return known;
    const parsing = (async () => {
      if (!current.dates.has(date)) return undefined;
      const held = olderDay(`/v1/screened/${date}`);
      let body: Buffer | undefined;
      try {
        body = held?.body ?? (await source.read(screenedKey(date)));
      } catch (error) {
        throw new DayUnavailableError(
          `the screened file of ${date} cannot be read: ${(error as Error).message}`,
        );
      }
      if (!body) return undefined;
      const day = parseScreenedDay(body);
      if ("problem" in day)
        throw new DayUnavailableError(`the screened file of ${date} cannot be read: ${day.problem}`);
      return day;
    })();
    parsing.catch(() => current.screened.delete(date));
    current.screened.set(date, parsing);
    return parsing;
  };

  return {
    lookup: (pathname) => state.responses.get(pathname) ?? olderDay(pathname),
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
    readScreened: screenedOf,
    latestDate: () => state.latest,
    // The newest load: after a failed first one, a later reload that succeeds makes the cache ready.
    ready: () => reloading,
    problems: () => state.problems,
    reload,
    onReload(listener) {
      reloaded.add(listener);
      return () => reloaded.delete(listener);
    },
    origin: () => source.status(),
    close() {
      closed = true;
      stopWatching();
      source.close();
    },
  };
}

// What the servers keep of a day the daily job (pipeline/daily-job.ts) has published, told only once
// it is published: each Bench-as-a-Service firm's view of the day, then its `daily.published` event
// queued for the webhook receivers (the event id a server noticing the files would use: sent once
// either way). An import of history instead records its day as announced before writing it, so that
// nobody announces it. Only a store a server uses is written (serversStoreExists).
import type { Candidate } from "../pipeline/domain/candidate.ts";
import type { CompiledRelevance } from "../pipeline/domain/relevance-model.ts";
import type { RunRecord } from "../pipeline/domain/run-record.ts";
import type { DailySnapshot } from "../pipeline/domain/snapshot.ts";
import { createKeyService } from "./access/key-service.ts";
import { createBenchStore } from "./bench/bench-store.ts";
import { buildFirmViews, type FirmViewsResult, type WatchedLookup } from "./bench/firm-views.ts";
import { configFromEnv } from "./config.ts";
import { deferredReaderService } from "./readers/deferred-reader-service.ts";
import { type ArxivLookup, completePendingItems, type PendingReport } from "./readers/pending-lookup.ts";
import { publishedScreenedSource } from "./readers/screened-source.ts";
import { createSnapshotCache } from "./snapshots/snapshot-cache.ts";
import { createStoreFromEnv, serversStoreExists } from "./store/from-env.ts";
import type { Store } from "./store/types.ts";
import { announcePublishedDay, recordDayQuietly } from "./webhooks/daily-announcer.ts";

export interface ServersState {
  /** Where the store is configured (STATE_STORE, STATE_DIR, REDIS_URL, ...) and the key prefix. */
  env: NodeJS.ProcessEnv;
  /** What STATE_DIR is relative to. */
  rootDir: string;
  /** The public site's base URL, for the event's snapshot URL. */
  siteUrl: string;
  /** The published folder: the screened history the day's lists are ranked (and models refitted) with. */
  publicDir: string;
  /**
   * The shipped relevance model the servers' readers use, read only when a key to announce to has a
   * profile: the `for_you` lists are ranked here as a server would rank them.
   */
  relevance: () => Promise<CompiledRelevance | null>;
}

export interface PublishedDay {
  snapshot: DailySnapshot;
  record: RunRecord;
  /** The day's candidates as the source gave them: the texts a firm's watched terms are found in. */
  candidates: readonly Candidate[];
}

export interface DayNews {
  /** The firms' views stored, or what stopped them; null when not asked for or without a servers' store. */
  firmViews: FirmViewsResult | Error | null;
  /** Whether `daily.published` was queued now (false: it was already), or what stopped it; null when not asked for or without a servers' store. */
  announced: boolean | Error | null;
  /** The readers' pending library items completed before the announcement; null when not asked for. */
  pending: PendingReport | Error | null;
}

/** The daily job's completion of the readers' pending items (pending-lookup.ts). */
export interface PendingOptions {
  /** The arXiv API's lookup; null offline (the items found among the screened papers are completed). */
  lookup: ArxivLookup | null;
  /** The published folder: the screened history the items are looked for in and the models learn against. */
  publicDir: string;
}

/**
 * Tells the servers of a published day: the firms' views first (`firmViews`), then the readers'
 * pending library items (`pending`: completed and refitted before their lists are ranked), then the
 * event (`announce`). A failure of any is returned, never thrown: the public day is published whatever
 * the servers make of it.
 */
export async function tellServers(
  day: PublishedDay,
  state: ServersState,
  options: {
    firmViews: boolean;
    announce: boolean;
    citations?: WatchedLookup | undefined;
    pending?: PendingOptions | undefined;
  },
): Promise<DayNews> {
  if (!serversStoreExists(state.env, state.rootDir))
    return { firmViews: null, announced: null, pending: null };
  let store: Store;
  try {
    store = await createStoreFromEnv(state.env, { rootDir: state.rootDir });
  } catch (error) {
    return {
      firmViews: options.firmViews ? (error as Error) : null,
      announced: options.announce ? (error as Error) : null,
      pending: options.pending ? (error as Error) : null,
    };
  }
  try {
    let firmViews: DayNews["firmViews"] = null;
    if (options.firmViews) {
      const keys = createKeyService({ store, prefix: configFromEnv(state.env).keyPrefix });
      const texts = new Map(
        day.candidates.map((c) => [c.id, { summary: c.summary, authors: c.authors, comment: c.comment }]),
      );
      firmViews = await buildFirmViews({
        bench: createBenchStore(store, keys),
        record: day.record,
        texts,
        citations: options.citations,
      }).catch((error: unknown) => error as Error);
    }
    const pending = options.pending
      ? await completePendingItems({
          store,
          now: Date.now,
          lookup: options.pending.lookup,
          publicDir: options.pending.publicDir,
          relevance: state.relevance,
        }).catch((error: unknown) => error as Error)
      : null;
    const announced = options.announce
      ? await announceRanked(store, state, day.snapshot).catch((error: unknown) => error as Error)
      : null;
    return { firmViews, announced, pending };
  } finally {
    await store.close();
  }
}

/**
 * Queues the day's event with its lists ranked as a server ranks them: the same profiles, model and
 * screened history (the whole published folder). A list may refit a profile's outdated model, and the
 * refit is stored for the servers too: fitted on one day's papers, it would lose every earlier rating
 * and library text.
 */
async function announceRanked(store: Store, state: ServersState, snapshot: DailySnapshot): Promise<boolean> {
  const snapshots = await createSnapshotCache({ publicDir: state.publicDir });
  try {
    const readers = deferredReaderService(
      { store, now: Date.now, screened: publishedScreenedSource(snapshots) },
      state.relevance,
    );
    return await announcePublishedDay(
      {
        store,
        now: Date.now,
        siteUrl: state.siteUrl,
        rankDays: (keyIds, date) => readers.rankDays(keyIds, date, 0),
      },
      snapshot,
    );
  } finally {
    snapshots.close();
  }
}

/**
 * Before an import of history writes a day: records it in the servers' store as announced, so that no
 * `daily.published` goes out for it. Whether it was recorded now; false without a servers' store.
 * Unlike telling, a failure here throws and stops the import before the day is written: written, it
 * would be news.
 */
export async function recordUnannounced(date: string, state: ServersState): Promise<boolean> {
  if (!serversStoreExists(state.env, state.rootDir)) return false;
  const store = await createStoreFromEnv(state.env, { rootDir: state.rootDir });
  try {
    return await recordDayQuietly({ store, now: Date.now }, date);
  } finally {
    await store.close();
  }
}

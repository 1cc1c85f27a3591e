import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import {
  dailyEventId,
  dailyPublishedData,
  daysAnnouncedBefore,
  daysToAnnounce,
} from "../../pipeline/domain/webhook.ts";
import type { Store } from "../store/types.ts";
import { type DayRanker, rankOnce } from "./for-you-lists.ts";
import { eventRecordOf, type NewEvent, publishEvent } from "./publish-event.ts";
import {
  ANNOUNCED_BASELINE_KEY,
  ANNOUNCED_DAYS_PREFIX,
  type AnnouncedDay,
  announcedDayKey,
  DAILY_WATERMARK_KEY,
} from "./webhook-records.ts";

/** What the announcer reads of the snapshot cache: the dates held, and a day in full when announced. */
export interface PublishedDays {
  days(): readonly { date: string }[];
  readDay(date: string): Promise<DailySnapshot>;
  ready(): Promise<void>;
  onReload?(listener: () => void): () => void;
}

export interface AnnounceDeps {
  store: Store;
  now: () => number;
  /** The public site's base url, for the snapshot url in the event and the lists' `list_url`. */
  siteUrl: string;
  /**
   * A day's lists for many keys (the reader service's `rankDays`): every process that announces ranks
   * the lists of the keys with a profile before the event is recorded (for-you-lists.ts).
   */
  rankDays: DayRanker;
  /** Where a list that could not be ranked is told of (for-you-lists.ts). */
  log?: (message: string) => void;
}

async function announcedDays(store: Store): Promise<Set<string>> {
  const keys = await store.getKeys(ANNOUNCED_DAYS_PREFIX);
  return new Set(keys.map((key) => key.slice(key.lastIndexOf(":") + 1)));
}

const record = (deps: Pick<AnnounceDeps, "store" | "now">, date: string, how: AnnouncedDay["how"]) =>
  deps.store.setIfAbsent(announcedDayKey(date), { how, at: new Date(deps.now()).toISOString() });

/**
 * Announces one day unless it already was: its `daily.published` event is recorded and queued, then
 * the day is recorded as announced. The event's id is the date and is recorded only if absent, so
 * several servers and `picks curate` announcing the same day at once make one event, sent once per
 * endpoint; a process that dies between the event and the record leaves the day to be announced
 * again, which finds the event already there. The record outlives the event's history, so a day
 * published again later (a re-run) is not news again. Before the event, the `for_you` list of each
 * recipient key with a profile is stored, so the fan-out finds them. Returns whether this call queued
 * the event.
 */
async function announceDay(deps: AnnounceDeps, day: DailySnapshot): Promise<boolean> {
  const event: NewEvent = {
    id: dailyEventId(day.date),
    type: "daily.published",
    data: dailyPublishedData(day, deps.siteUrl),
  };
  const at = deps.now();
  const lists = {
    store: deps.store,
    rankDays: deps.rankDays,
    apiBase: deps.siteUrl,
    ...(deps.log ? { log: deps.log } : {}),
  };
  const created = await rankOnce(lists, eventRecordOf(event, at), day.date, () =>
    publishEvent(deps.store, event, at),
  );
  await record(deps, day.date, "event");
  return created;
}

/**
 * On a store with no record of announced days: the days published so far are not news, except
 * those after the watermark an older version left, which it had not announced yet.
 */
async function recordBaseline(deps: AnnounceDeps, published: string[], announced: Set<string>) {
  if ((await deps.store.getItem(ANNOUNCED_BASELINE_KEY)) !== null) return;
  const watermark = await deps.store.getItem<string>(DAILY_WATERMARK_KEY);
  for (const date of daysAnnouncedBefore(published, watermark)) {
    if (!announced.has(date)) await record(deps, date, "before");
    announced.add(date);
  }
  await deps.store.setIfAbsent(ANNOUNCED_BASELINE_KEY, new Date(deps.now()).toISOString());
}

/**
 * Publishes a `daily.published` event for every held day not yet announced, whatever its date: a
 * missed day curated after a newer one is announced too. Kept in the store, the record of announced
 * days survives restarts: a day published while the server was down is announced at the next start,
 * and none is announced twice. On a store that never announced, the days already published are not
 * news: it starts from them.
 */
async function announceNewDays(deps: AnnounceDeps, cache: PublishedDays): Promise<string[]> {
  const published = cache.days().map((day) => day.date);
  if (published.length === 0) return [];
  const announced = await announcedDays(deps.store);
  await recordBaseline(deps, published, announced);
  const dates = daysToAnnounce(published, announced);
  for (const date of dates) await announceDay(deps, await cache.readDay(date));
  return dates;
}

/**
 * What `picks curate` does after publishing a day: the same event, with the same id, so it is sent once
 * whether curate or a server that saw the files change records it first, and not at all when the day
 * was announced before.
 */
export async function announcePublishedDay(deps: AnnounceDeps, day: DailySnapshot): Promise<boolean> {
  if ((await deps.store.getItem(announcedDayKey(day.date))) !== null) return false;
  return announceDay(deps, day);
}

/**
 * What an import of history does before it writes a day: records it as announced without an event,
 * so neither it nor a server that sees the files announces it. Returns false when it already was.
 */
export async function recordDayQuietly(
  deps: Pick<AnnounceDeps, "store" | "now">,
  date: string,
): Promise<boolean> {
  return record(deps, date, "quiet");
}

/**
 * Announces new days at start and after every reload of the snapshot cache, one pass at a time;
 * `wake` tells a worker in this process to start delivering.
 */
export function watchPublishedDays(
  deps: AnnounceDeps & { log: (message: string) => void; wake: () => void },
  cache: PublishedDays,
): { stop: () => Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const pass = () => {
    running = running
      .then(async () => {
        await cache.ready();
        // A server stopping while the history still loads closes its store: nothing to announce then.
        if (stopped) return;
        if ((await announceNewDays(deps, cache)).length > 0) deps.wake();
      })
      .catch((error) => {
        // Stopped while the history still loaded: the load was abandoned, not failed.
        if (!stopped) deps.log(`webhooks: announcing new days failed: ${(error as Error).message}`);
      });
  };
  const unsubscribe = cache.onReload?.(pass) ?? (() => {});
  // Resolves once a pass in progress is over, so the store can be closed behind it.
  const stop = () => {
    stopped = true;
    unsubscribe();
    return running;
  };
  pass();
  return { stop };
}

import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import { dailyEventId, dailyPublishedData, daysToAnnounce } from "../../pipeline/domain/webhook.ts";
import type { Store } from "../store/types.ts";
import { advanceWatermark, publishEvent } from "./publish-event.ts";
import { DAILY_WATERMARK_KEY } from "./webhook-records.ts";

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
  /** The public site's base url, for the snapshot url in the event. */
  siteUrl: string;
}

/**
 * Publishes a `daily.published` event for every day newer than the watermark (the newest day already
 * announced), then moves the watermark. Kept in the store, the watermark survives restarts: a day
 * published while the server was down is announced at the next start, and none is announced twice.
 * Several servers may run this at once: the events' ids are the dates, so each is recorded once.
 * On a store that never had a watermark, the days already published are not news: it starts there.
 */
export async function announceNewDays(deps: AnnounceDeps, cache: PublishedDays): Promise<string[]> {
  const days = cache.days();
  const newest = days.reduce<string | null>(
    (max, day) => (max === null || day.date > max ? day.date : max),
    null,
  );
  if (newest === null) return [];
  const watermark = await deps.store.getItem<string>(DAILY_WATERMARK_KEY);
  if (watermark === null) {
    await deps.store.setIfAbsent(DAILY_WATERMARK_KEY, newest);
    return [];
  }
  const dates = daysToAnnounce(
    days.map((day) => day.date),
    watermark,
  );
  for (const date of dates) {
    const day = await cache.readDay(date);
    await publishEvent(
      deps.store,
      { id: dailyEventId(date), type: "daily.published", data: dailyPublishedData(day, deps.siteUrl) },
      deps.now(),
    );
  }
  await advanceWatermark(deps.store, newest);
  return dates;
}

/**
 * What `picks curate` does after publishing a day: the same event, with the same id, so it is sent once
 * whether curate or a server that saw the files change records it first.
 */
export async function announcePublishedDay(deps: AnnounceDeps, day: DailySnapshot): Promise<boolean> {
  const watermark = await deps.store.getItem<string>(DAILY_WATERMARK_KEY);
  if (watermark !== null && day.date <= watermark) return false;
  await publishEvent(
    deps.store,
    { id: dailyEventId(day.date), type: "daily.published", data: dailyPublishedData(day, deps.siteUrl) },
    deps.now(),
  );
  await advanceWatermark(deps.store, day.date);
  return true;
}

/**
 * Announces new days at start and after every reload of the snapshot cache, one pass at a time;
 * `wake` tells a worker in this process to start delivering.
 */
export function watchPublishedDays(
  deps: AnnounceDeps & { log: (message: string) => void; wake: () => void },
  cache: PublishedDays,
): { ready: Promise<void>; stop: () => Promise<void> } {
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
      .catch((error) => deps.log(`webhooks: announcing new days failed: ${(error as Error).message}`));
    return running;
  };
  const unsubscribe = cache.onReload?.(() => void pass()) ?? (() => {});
  // Resolves once a pass in progress is over, so the store can be closed behind it.
  const stop = () => {
    stopped = true;
    unsubscribe();
    return running;
  };
  return { ready: pass(), stop };
}

// The bytes of a reader's personal feed: the top of their list of the newest published day, the same
// ranking as GET /v1/me/picks, in Atom or JSON Feed. A feed reader polls every few minutes while the list
// changes only with the day or the profile, so the bytes are kept per key, profile stamp (version and
// nonce, reader-store.ts), day and form: a poll costs the profile version's store read, and an unchanged
// feed a 304.

import { hash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { FeedSite } from "../../pipeline/domain/feeds.ts";
import {
  buildForYouAtom,
  buildForYouJson,
  FOR_YOU_FEED_ITEMS,
  forYouEntries,
} from "../../pipeline/domain/personal-feed.ts";
import { TIERS } from "../../pipeline/domain/tiers.ts";
import type { KeyRecord } from "../access/key-service.ts";
import type { SnapshotCache } from "../snapshots/snapshot-cache.ts";
import type { Store } from "../store/types.ts";
import type { ReaderService } from "./reader-service.ts";
import { readStamp } from "./reader-store.ts";

export type FeedForm = "atom" | "json";

export interface FeedAnswer {
  body: string;
  /** Strong, per day and profile version (and the bytes, which also follow the base URL). */
  etag: string;
}

export interface ForYouFeeds {
  answer(record: KeyRecord, token: string, form: FeedForm, baseUrl: string): Promise<FeedAnswer>;
}

/** A 10-entry feed is 8-12 KB: a few thousand readers' feeds fit. */
const FEED_BYTES = 32 * 1024 * 1024;

export function createForYouFeeds(options: {
  store: Store;
  snapshots: SnapshotCache;
  readers: ReaderService;
}): ForYouFeeds {
  const { store, snapshots, readers } = options;
  const kept = new LRUCache<string, FeedAnswer>({
    maxSize: FEED_BYTES,
    sizeCalculation: (answer, key) => answer.body.length + key.length,
  });
  // Each load of the published days is a new list: a day published again makes new feeds.
  const loads = new WeakMap<object, number>();
  let loadCount = 0;
  const loadOf = (days: object): number => {
    let load = loads.get(days);
    if (load === undefined) {
      load = ++loadCount;
      loads.set(days, load);
    }
    return load;
  };

  const build = async (
    record: KeyRecord,
    token: string,
    form: FeedForm,
    site: FeedSite,
    date: string | null,
    limit: number,
  ): Promise<{ body: string; tag: string | null }> => {
    const ranked = date === null ? null : await readers.rankDay(record.id, date, limit);
    const day = date === null ? null : await snapshots.readDay(date).catch(() => null);
    const sample = day?.sample ?? false;
    const updated = day?.generated_at ?? (date === null ? "1970-01-01T00:00:00Z" : `${date}T00:00:00Z`);
    const entries =
      ranked && date !== null
        ? forYouEntries({
            date,
            generatedAt: updated,
            sample,
            papers: ranked.papers,
            items: ranked.items,
            limit,
            site,
          })
        : [];
    const body =
      form === "atom"
        ? buildForYouAtom(entries, site, token, updated, sample)
        : JSON.stringify(buildForYouJson(entries, site, token, sample));
    return { body, tag: ranked?.tag ?? null };
  };

  return {
    async answer(record, token, form, baseUrl) {
      await snapshots.ready();
      const date = snapshots.latestDate();
      const { version, tag } = await readStamp(store, record.id);
      const limit = Math.min(FOR_YOU_FEED_ITEMS, TIERS[record.tier].max_limit);
      const key = `${record.id}|${tag}|${date}|${loadOf(snapshots.days())}|${limit}|${form}|${baseUrl}|${token}`;
      const found = kept.get(key);
      if (found) return found;
      const built = await build(record, token, form, { baseUrl }, date, limit);
      const digest = hash("sha256", built.body, "hex").slice(0, 16);
      const answer = { body: built.body, etag: `"fy-${date ?? "none"}-v${version}-${digest}"` };
      // Kept only under the stamp it was ranked with (a write between the two reads made a new one).
      if (built.tag === null || built.tag === tag) kept.set(key, answer);
      return answer;
    },
  };
}

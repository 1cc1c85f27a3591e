import type { BenchNote } from "../../pipeline/domain/bench-note.ts";
import type { FirmRubric, FirmRubricHistory } from "../../pipeline/domain/bench-rubric.ts";
import type { FirmDay } from "../../pipeline/domain/bench-scoring.ts";
import type { TrackingDay } from "../../pipeline/domain/bench-tracking.ts";
import { EMPTY_WATCHLIST, type Watchlist } from "../../pipeline/domain/bench-watchlist.ts";
import type { KeyService } from "../access/key-service.ts";
import type { Store } from "../store/types.ts";

// A firm's state, every key under `bench:{firm}:`: nothing of it shares a key with public data, so
// nothing public (snapshots, feeds, stats, MCP) can read it by accident. Firm slugs are store-key safe
// by their pattern. Days and weeks are key segments, so `getKeys` lists them in order.

const base = (firm: string) => `bench:${firm}`;
const watchlistKey = (firm: string) => `${base(firm)}:watchlist`;
const rubricPrefix = (firm: string) => `${base(firm)}:rubric`;
// Zero-padded so the store's sorted key listing is version order.
const rubricKey = (firm: string, version: number) =>
  `${rubricPrefix(firm)}:${String(version).padStart(6, "0")}`;
const dayPrefix = (firm: string) => `${base(firm)}:day`;
const trackingPrefix = (firm: string) => `${base(firm)}:tracking`;
const notePrefix = (firm: string) => `${base(firm)}:note`;
const lastSegment = (key: string): string => key.slice(key.lastIndexOf(":") + 1);

export interface BenchStore {
  /** Firms with at least one active bench key, sorted. */
  firms(): Promise<string[]>;
  watchlist(firm: string): Promise<Watchlist>;
  setWatchlist(firm: string, watchlist: Watchlist): Promise<void>;
  /** Stores a new rubric version, numbered by the store (never two alike, also across processes). */
  addRubric(firm: string, make: (version: number) => FirmRubric): Promise<FirmRubric>;
  rubrics(firm: string): Promise<FirmRubricHistory>;
  setDay(firm: string, day: FirmDay): Promise<void>;
  /** Firm days from `from` to `to` (inclusive), oldest first. */
  days(firm: string, from: string, to: string): Promise<FirmDay[]>;
  setTracking(firm: string, day: TrackingDay): Promise<void>;
  tracking(firm: string, from: string, to: string): Promise<TrackingDay[]>;
  setNote(firm: string, note: BenchNote): Promise<void>;
  note(firm: string, week: string): Promise<BenchNote | null>;
  /** Built notes, newest week first. */
  notes(firm: string): Promise<BenchNote[]>;
}

export function createBenchStore(store: Store, keys: KeyService): BenchStore {
  const inRange = async <T>(prefix: string, from: string, to: string): Promise<T[]> => {
    const wanted = (await store.getKeys(prefix)).filter((key) => {
      const day = lastSegment(key);
      return day >= from && day <= to;
    });
    const values = await Promise.all(wanted.map((key) => store.getItem<T>(key)));
    return values.filter((value): value is Awaited<T> & T => value !== null);
  };
  return {
    firms: () => keys.firms(),
    async watchlist(firm) {
      return (await store.getItem<Watchlist>(watchlistKey(firm))) ?? EMPTY_WATCHLIST;
    },
    setWatchlist: (firm, watchlist) => store.setItem(watchlistKey(firm), watchlist),
    async addRubric(firm, make) {
      const rubric = make(await store.next(`bench-rubric:${firm}`));
      await store.setItem(rubricKey(firm, rubric.version), rubric);
      return rubric;
    },
    async rubrics(firm) {
      const keysOf = await store.getKeys(rubricPrefix(firm));
      const versions = (await Promise.all(keysOf.map((key) => store.getItem<FirmRubric>(key)))).filter(
        (rubric): rubric is FirmRubric => rubric !== null,
      );
      return { current: versions.at(-1) ?? null, versions };
    },
    setDay: (firm, day) => store.setItem(`${dayPrefix(firm)}:${day.date}`, day),
    days: (firm, from, to) => inRange<FirmDay>(dayPrefix(firm), from, to),
    setTracking: (firm, day) => store.setItem(`${trackingPrefix(firm)}:${day.date}`, day),
    tracking: (firm, from, to) => inRange<TrackingDay>(trackingPrefix(firm), from, to),
    setNote: (firm, note) => store.setItem(`${notePrefix(firm)}:${note.week.toLowerCase()}`, note),
    note: (firm, week) => store.getItem<BenchNote>(`${notePrefix(firm)}:${week.toLowerCase()}`),
    async notes(firm) {
      const all = await inRange<BenchNote>(notePrefix(firm), "", "~");
      return all.reverse();
    },
  };
}

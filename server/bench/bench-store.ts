import type { BenchNote } from "../../pipeline/domain/bench-note.ts";
import {
  FIRM_RUBRIC_VERSIONS_KEPT,
  type FirmRubric,
  type FirmRubricHistory,
} from "../../pipeline/domain/bench-rubric.ts";
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
// One key per rubric version that a stored firm day names: such a version is never pruned.
const namedPrefix = (firm: string) => `${base(firm)}:rubric-named`;
const namedKey = (firm: string, version: number) => `${namedPrefix(firm)}:${version}`;
// Set once the days stored before those keys existed have been read for the versions they name.
const namedBackfillKey = (firm: string) => `${base(firm)}:rubric-named-backfilled`;
const dayPrefix = (firm: string) => `${base(firm)}:day`;
const trackingPrefix = (firm: string) => `${base(firm)}:tracking`;
const notePrefix = (firm: string) => `${base(firm)}:note`;
const lastSegment = (key: string): string => key.slice(key.lastIndexOf(":") + 1);

export interface BenchStore {
  /** Firms with at least one active bench key, sorted. */
  firms(): Promise<string[]>;
  watchlist(firm: string): Promise<Watchlist>;
  setWatchlist(firm: string, watchlist: Watchlist): Promise<void>;
  /**
   * Stores a new rubric version, numbered by the store (never two alike, also across processes), and
   * prunes the oldest beyond FIRM_RUBRIC_VERSIONS_KEPT that no stored firm day names.
   */
  addRubric(firm: string, make: (version: number) => FirmRubric): Promise<FirmRubric>;
  currentRubric(firm: string): Promise<FirmRubric | null>;
  /** The current version and up to `limit` kept versions older than `before`, newest first. */
  rubrics(firm: string, page: { before?: number; limit: number }): Promise<FirmRubricHistory>;
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
      const kept = await store.getKeys(rubricPrefix(firm));
      if (kept.length > FIRM_RUBRIC_VERSIONS_KEPT) {
        if (!(await store.getItem<boolean>(namedBackfillKey(firm)))) {
          // Once per firm: days stored before versions were marked as named are read for theirs.
          for (const key of await store.getKeys(dayPrefix(firm))) {
            const version = (await store.getItem<FirmDay>(key))?.firm_rubric_version ?? 0;
            if (version > 0) await store.setItem(namedKey(firm, version), 1);
          }
          await store.setItem(namedBackfillKey(firm), true);
        }
        const named = new Set(
          (await store.getKeys(namedPrefix(firm))).map((key) => Number(lastSegment(key))),
        );
        const old = kept
          .slice(0, kept.length - FIRM_RUBRIC_VERSIONS_KEPT)
          .filter((key) => !named.has(Number(lastSegment(key))));
        await Promise.all(old.map((key) => store.removeItem(key)));
      }
      return rubric;
    },
    async currentRubric(firm) {
      const last = (await store.getKeys(rubricPrefix(firm))).at(-1);
      return last === undefined ? null : store.getItem<FirmRubric>(last);
    },
    async rubrics(firm, page) {
      const all = await store.getKeys(rubricPrefix(firm));
      const older =
        page.before === undefined
          ? all
          : all.filter((key) => Number(lastSegment(key)) < (page.before as number));
      const wanted = older.slice(-page.limit).reverse();
      const [current, ...versions] = await Promise.all(
        [all.at(-1), ...wanted].map((key) => (key === undefined ? null : store.getItem<FirmRubric>(key))),
      );
      const listed = versions.filter((rubric): rubric is FirmRubric => rubric !== null);
      const more = older.length > wanted.length && listed.length > 0;
      return {
        current: current ?? null,
        versions: listed,
        next_cursor: more ? String(listed.at(-1)?.version) : null,
      };
    },
    async setDay(firm, day) {
      if (day.firm_rubric_version > 0) await store.setItem(namedKey(firm, day.firm_rubric_version), 1);
      await store.setItem(`${dayPrefix(firm)}:${day.date}`, day);
    },
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

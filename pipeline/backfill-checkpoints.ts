// The checkpoints of `picks backfill` in the state store, so that a stopped run (killed, a failed day)
// continues where it stopped: the job (its settings, the days it published, the day that failed) and
// the pages read of the day in progress, saved after every page. The pages of a day go once it is
// published: what a resumed run has read is never asked for again.

import { createHash } from "node:crypto";
import type { DayPages } from "./sources/arxiv-history.ts";

/** What the checkpoints need of the servers' state store (server/store/types.ts's Store has it). */
export interface CheckpointStore {
  getItem<T>(key: string): Promise<T | null>;
  setItem(key: string, value: unknown): Promise<void>;
  removeItem(key: string): Promise<void>;
  /** Keys below `prefix`, segment-wise. */
  getKeys(prefix: string): Promise<string[]>;
}

/** The settings that decide what a backfill publishes: the same settings continue the same job. */
export interface BackfillSettings {
  from: string;
  to: string;
  categories: string[];
  judge: "rules" | "llm";
  ranker: "model" | "rules";
  model: string | null;
  citations: boolean;
  force: boolean;
  announce: boolean;
  minTotal: number | null;
  maxPicks: number | null;
  /** The static site root and the run records' folder the days are published to. */
  out: string;
  runs: string;
}

export interface BackfillJob {
  settings: BackfillSettings;
  started_at: string;
  /** Days this job published, oldest first: with `--force`, what a resumed run does not publish again. */
  done: string[];
  failed: { day: string; reason: string; at: string } | null;
}

const JOB_KEY = "backfill:job";

const PAGES_PREFIX = "backfill:pages";
// The categories as 32 hex digits of SHA-256, as the store's hashKeyPart writes free text, so that
// the pages a stopped run saved are found again.
const pagesKey = (categories: readonly string[], day: string): string =>
  `${PAGES_PREFIX}:${createHash("sha256")
    .update([...categories].sort().join("+"), "utf8")
    .digest("hex")
    .slice(0, 32)}:${day}`;

export const sameSettings = (a: BackfillSettings, b: BackfillSettings): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

export interface BackfillCheckpoints {
  /** The stored job, whatever its settings: what `--resume` alone continues. */
  stored(): Promise<BackfillJob | null>;
  /** The stored job when it has these settings, else a new one (replacing it, and its pages). */
  begin(settings: BackfillSettings, now: Date): Promise<BackfillJob>;
  /** Removes the finished job: the same command later is a new backfill. */
  finish(): Promise<void>;
  save(job: BackfillJob): Promise<void>;
  pages(categories: readonly string[], day: string): Promise<DayPages | null>;
  savePages(categories: readonly string[], pages: DayPages): Promise<void>;
  dropPages(categories: readonly string[], day: string): Promise<void>;
}

export function backfillCheckpoints(store: CheckpointStore): BackfillCheckpoints {
  return {
    stored: () => store.getItem<BackfillJob>(JOB_KEY),
    async begin(settings, now) {
      const stored = await store.getItem<BackfillJob>(JOB_KEY);
      if (stored && sameSettings(stored.settings, settings)) return stored;
      for (const key of await store.getKeys(PAGES_PREFIX)) await store.removeItem(key);
      const job: BackfillJob = { settings, started_at: now.toISOString(), done: [], failed: null };
      await store.setItem(JOB_KEY, job);
      return job;
    },
    save: (job) => store.setItem(JOB_KEY, job),
    finish: () => store.removeItem(JOB_KEY),
    pages: (categories, day) => store.getItem<DayPages>(pagesKey(categories, day)),
    savePages: (categories, pages) => store.setItem(pagesKey(categories, pages.day), pages),
    dropPages: (categories, day) => store.removeItem(pagesKey(categories, day)),
  };
}

import type { CandidateBatch } from "./candidate.ts";
import type { Pick } from "./pick.ts";
import type { Rubric } from "./rubric.ts";
import type { SelectionPolicy } from "./selection.ts";
import {
  buildDailySnapshot,
  buildRecent,
  buildStats,
  type DailySnapshot,
  type DayCounts,
  type Recent,
  type Stats,
} from "./snapshot.ts";

export interface DayInput {
  date: string;
  generatedAt: string;
  batch: CandidateBatch;
  rubric: Rubric;
  selection: SelectionPolicy;
  /** The day's picks, enriched with their citation data. */
  picks: Pick[];
  /** The days already published, as read before this run. */
  published: readonly DailySnapshot[];
  /** Earlier days whose picks this run gave new citation data. */
  refreshed: readonly DailySnapshot[];
}

export interface AssembledDay {
  snapshot: DailySnapshot;
  counts: DayCounts;
  /** Every day after this run, today included, refreshed days replaced. */
  days: DailySnapshot[];
  /** The day `latest.json` holds: the newest of `days`, which a rerun of an old day does not change. */
  latest: DailySnapshot;
  recent: Recent;
  stats: Stats;
}

/** What one day's run publishes, from what it read and computed: no I/O, no clock. */
export function assembleDay(input: DayInput): AssembledDay {
  const { date, generatedAt, batch, rubric } = input;
  const counts: DayCounts = {
    screened: batch.candidates.length,
    skipped: batch.skipped.length,
    duplicates: batch.duplicates,
    kept: input.picks.length,
  };
  const snapshot = buildDailySnapshot({
    date,
    generatedAt,
    sample: batch.sample,
    source: batch.source,
    rubricVersion: rubric.version,
    selection: input.selection,
    counts,
    picks: input.picks,
  });
  const refreshed = new Map(input.refreshed.map((day) => [day.date, day]));
  const days = [
    ...input.published.filter((day) => day.date !== date).map((day) => refreshed.get(day.date) ?? day),
    snapshot,
  ];
  const latest = days.reduce((a, b) => (a.date >= b.date ? a : b));
  return {
    snapshot,
    counts,
    days,
    latest,
    recent: buildRecent(days, generatedAt),
    stats: buildStats(days, generatedAt, rubric.version),
  };
}

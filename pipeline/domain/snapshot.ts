import { z } from "zod";
import { type Pick, PickSchema } from "./pick.ts";
import { type SelectionPolicy, SelectionPolicySchema } from "./selection.ts";

export const DayCountsSchema = z.object({
  screened: z.int().min(0).describe("unique candidates scored"),
  skipped: z.int().min(0).describe("rows refused: malformed id, missing title"),
  duplicates: z.int().min(0).describe("repeated ids (cross-lists), counted once"),
  kept: z.int().min(0),
});
export type DayCounts = z.infer<typeof DayCountsSchema>;

/** `public/v1/daily/{date}.json`: one announcement day's picks and run summary. */
export const DailySnapshotSchema = z.object({
  date: z.string(),
  generated_at: z.string(),
  sample: z.boolean().describe("true when built from the embedded sample, not live data"),
  source: z.string(),
  rubric_version: z.string(),
  selection: SelectionPolicySchema,
  counts: DayCountsSchema,
  picks: z.array(PickSchema),
});
export type DailySnapshot = z.infer<typeof DailySnapshotSchema>;

export const PickSummarySchema = z.object({
  arxiv_id: z.string(),
  rank: z.int().min(1),
  title: z.string(),
  total: z.int(),
  reg_fit: z.int(),
  abs_url: z.string(),
});

export const DaySummarySchema = z.object({
  date: z.string(),
  sample: z.boolean(),
  counts: DayCountsSchema,
  picks: z.array(PickSummarySchema),
});
export type DaySummary = z.infer<typeof DaySummarySchema>;

/** `public/v1/recent.json`: the latest days, newest first, picks in brief. */
export const RecentSchema = z.object({
  generated_at: z.string(),
  days: z.array(DaySummarySchema),
});
export type Recent = z.infer<typeof RecentSchema>;

/** One published day in the stats' series: what was screened and kept. */
export const DayTallySchema = z.object({
  date: z.string(),
  screened: z.int().min(0),
  kept: z.int().min(0),
  sample: z.boolean(),
});
export type DayTally = z.infer<typeof DayTallySchema>;

/** `public/v1/stats.json`: pipeline-wide counts over every published day. */
export const StatsSchema = z.object({
  generated_at: z.string(),
  rubric_version: z.string(),
  days: z.int().min(0),
  first_date: z.string().nullable(),
  latest_date: z.string().nullable(),
  screened: z.int().min(0),
  kept: z.int().min(0),
  keep_rate: z.number().min(0).max(1),
  mean_axis_scores: z.record(z.string(), z.number()).describe("mean score of each axis over all picks"),
  reg_fit_histogram: z.object({ "1": z.int(), "2": z.int(), "3": z.int() }),
  sample_days: z.int().min(0),
  by_day: z
    .array(DayTallySchema)
    .optional()
    .describe("every published day, oldest first: screened and kept (absent in files written before it)"),
  axis_histograms: z
    .record(z.string(), z.array(z.int().min(0)).length(6))
    .optional()
    .describe("per axis, how many picks scored 0, 1, 2, 3, 4 and 5 (absent in files written before it)"),
});
export type Stats = z.infer<typeof StatsSchema>;

export const RECENT_DAYS = 14;

/** Builds one day's snapshot from its ranked picks. */
export function buildDailySnapshot(input: {
  date: string;
  generatedAt: string;
  sample: boolean;
  source: string;
  rubricVersion: string;
  selection: SelectionPolicy;
  counts: DayCounts;
  picks: Pick[];
}): DailySnapshot {
  return {
    date: input.date,
    generated_at: input.generatedAt,
    sample: input.sample,
    source: input.source,
    rubric_version: input.rubricVersion,
    selection: input.selection,
    counts: input.counts,
    picks: input.picks,
  };
}

function summarize(day: DailySnapshot): DaySummary {
  return {
    date: day.date,
    sample: day.sample,
    counts: day.counts,
    picks: day.picks.map((pick) => ({
      arxiv_id: pick.arxiv_id,
      rank: pick.rank,
      title: pick.title,
      total: pick.scores.total,
      reg_fit: pick.scores.reg_fit.score,
      abs_url: pick.abs_url,
    })),
  };
}

/** Newest-first summaries of the last RECENT_DAYS published days. */
export function buildRecent(days: readonly DailySnapshot[], generatedAt: string): Recent {
  const newest = [...days].sort((a, b) => (a.date < b.date ? 1 : -1)).slice(0, RECENT_DAYS);
  return { generated_at: generatedAt, days: newest.map(summarize) };
}

/** Counts over every published day. */
export function buildStats(
  days: readonly DailySnapshot[],
  generatedAt: string,
  rubricVersion: string,
): Stats {
  const dates = days.map((day) => day.date).sort();
  const picks = days.flatMap((day) => day.picks);
  const screened = days.reduce((sum, day) => sum + day.counts.screened, 0);
  const axisSums = new Map<string, number>();
  const axisHistograms: Record<string, number[]> = {};
  const histogram = { "1": 0, "2": 0, "3": 0 };
  for (const pick of picks) {
    for (const [axis, { score }] of Object.entries(pick.scores.axes)) {
      axisSums.set(axis, (axisSums.get(axis) ?? 0) + score);
      const counts = axisHistograms[axis] ?? [0, 0, 0, 0, 0, 0];
      const level = Math.min(5, Math.max(0, score));
      counts[level] = (counts[level] ?? 0) + 1;
      axisHistograms[axis] = counts;
    }
    histogram[String(pick.scores.reg_fit.score) as "1" | "2" | "3"] += 1;
  }
  const mean: Record<string, number> = {};
  for (const [axis, sum] of axisSums) mean[axis] = Math.round((sum / picks.length) * 100) / 100;
  return {
    generated_at: generatedAt,
    rubric_version: rubricVersion,
    days: days.length,
    first_date: dates[0] ?? null,
    latest_date: dates.at(-1) ?? null,
    screened,
    kept: picks.length,
    keep_rate: screened === 0 ? 0 : Math.round((picks.length / screened) * 10_000) / 10_000,
    mean_axis_scores: mean,
    reg_fit_histogram: histogram,
    sample_days: days.filter((day) => day.sample).length,
    by_day: [...days]
      .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
      .map((day) => ({
        date: day.date,
        screened: day.counts.screened,
        kept: day.picks.length,
        sample: day.sample,
      })),
    axis_histograms: axisHistograms,
  };
}

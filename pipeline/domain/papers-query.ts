import { z } from "zod";
import { addDays } from "./calendar.ts";
import { type AxisId, AxisIdSchema } from "./score.ts";

/** The longest history any answer covers: ten years of days, also for a tier whose history is full. */
export const MAX_DAYS = 3650;
/** The largest page any answer holds (the enterprise tier's). */
export const MAX_LIMIT = 5000;

/**
 * `GET /v1/papers` and the MCP `labs_papers` tool take these filters, with these bounds and defaults.
 * The HTTP route lowers a larger `days` or `limit` to the caller's caps instead of refusing it
 * (LOWERED_FILTERS); the maxima stay here as the most any answer applies.
 */
export const PapersQuerySchema = z.object({
  days: z
    .int()
    .min(1)
    .max(MAX_DAYS)
    .default(7)
    .describe("calendar days of history, ending at the latest published day"),
  axis: AxisIdSchema.optional().describe("apply min_score to this axis (0..5) instead of the total (0..45)"),
  min_score: z.int().min(0).max(45).default(0),
  min_reg_fit: z.int().min(0).max(3).default(0),
  limit: z.int().min(1).max(MAX_LIMIT).default(25),
});
export type PapersQuery = z.infer<typeof PapersQuerySchema>;

/** The filters `GET /v1/papers` takes at any size from their minimum up, for queryPapers to lower. */
export const LOWERED_FILTERS: readonly (keyof PapersQuery)[] = ["days", "limit"];

/** What the caller's tier allows; `null` history means all of it. */
export interface QueryCaps {
  historyDays: number | null;
  maxLimit: number;
}

export interface AppliedQuery extends PapersQuery {
  /** The first and last day searched. */
  from: string | null;
  to: string | null;
  /** Which requested values were lowered to the tier's limits. */
  capped: Array<"days" | "limit">;
}

/** What the filters read of a pick: its list item (`PaperListItem`) has these, as numbers. */
export interface PickFigures {
  date: string;
  total: number;
  reg_fit: number;
  axes: Record<AxisId, number>;
}

export interface PapersPage<P> {
  applied: AppliedQuery;
  total: number;
  picks: P[];
}

/**
 * Filters the published picks (days newest first): newest day first, then by rank.
 * `days` counts calendar days back from the latest published day, so a quiet weekend does not empty it.
 * `days` and `limit` above the caps (and above MAX_DAYS and MAX_LIMIT, for any caps) are lowered to them,
 * and `applied.capped` names them.
 */
export function queryPapers<P extends PickFigures>(
  daysNewestFirst: ReadonlyArray<{ date: string; picks: readonly P[] }>,
  query: PapersQuery,
  caps: QueryCaps,
  offset = 0,
): PapersPage<P> {
  const capped: AppliedQuery["capped"] = [];
  const maxDays = Math.min(caps.historyDays ?? MAX_DAYS, MAX_DAYS);
  let days = query.days;
  if (days > maxDays) {
    days = maxDays;
    capped.push("days");
  }
  const maxLimit = Math.min(caps.maxLimit, MAX_LIMIT);
  let limit = query.limit;
  if (limit > maxLimit) {
    limit = maxLimit;
    capped.push("limit");
  }
  const to = daysNewestFirst[0]?.date ?? null;
  const from = to === null ? null : addDays(to, -(days - 1));
  const matching: P[] = [];
  for (const day of daysNewestFirst) {
    if (from === null || day.date < from) break;
    for (const pick of day.picks) {
      const score = query.axis === undefined ? pick.total : pick.axes[query.axis];
      if (score >= query.min_score && pick.reg_fit >= query.min_reg_fit) matching.push(pick);
    }
  }
  return {
    applied: { ...query, days, limit, from, to, capped },
    total: matching.length,
    picks: matching.slice(offset, offset + limit),
  };
}

/** Whether a pick's day lies inside a tier's history window, counted back from the latest published day. */
export function withinHistory(pickDate: string, latestDate: string, historyDays: number | null): boolean {
  return historyDays === null || pickDate >= addDays(latestDate, -(historyDays - 1));
}

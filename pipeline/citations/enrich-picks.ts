import { addDays } from "../domain/calendar.ts";
import { refreshed } from "../domain/citations.ts";
import type { Pick } from "../domain/pick.ts";
import type { CitationRun } from "../domain/run-record.ts";
import type { DailySnapshot } from "../domain/snapshot.ts";
import type { CitationLookup } from "./citation-lookup.ts";

/** Earlier picks whose figures each run refreshes: new papers gain citations after they are picked. */
export const REFRESH_DAYS = 30;

export interface EnrichInput {
  date: string;
  picks: readonly Pick[];
  /** Every published day; those within REFRESH_DAYS before `date` are refreshed. */
  days: readonly DailySnapshot[];
  /** Absent: citations are not looked up, and `skipped` says why. */
  lookup: CitationLookup | undefined;
  skipped: string;
}

export interface EnrichResult {
  picks: Pick[];
  /** Earlier days whose picks got new citation data, to publish again; unchanged days are not rewritten. */
  refreshedDays: DailySnapshot[];
  run: CitationRun;
}

/**
 * The enrich stage: today's picks and the picks of the last 30 days looked up together (one Semantic
 * Scholar request per 500), so links between them are found. A refresh that comes back missing keeps
 * the figures a pick already had.
 */
export async function enrichPicks(input: EnrichInput): Promise<EnrichResult> {
  const since = addDays(input.date, -REFRESH_DAYS);
  const earlier = input.days.filter(
    (day) => day.date >= since && day.date < input.date && day.picks.length > 0,
  );
  const ids = [
    ...new Set([...input.picks, ...earlier.flatMap((day) => day.picks)].map((pick) => pick.arxiv_id)),
  ];
  if (!input.lookup || ids.length === 0) {
    const reason = input.lookup ? "no picks today or in the last 30 days" : input.skipped;
    return { picks: [...input.picks], refreshedDays: [], run: { status: "skipped", reason } };
  }
  const result = await input.lookup.lookup(ids);
  const picks = input.picks.map((pick) => ({
    ...pick,
    citations: result.citations.get(pick.arxiv_id) ?? null,
  }));
  const refreshedDays: DailySnapshot[] = [];
  for (const day of earlier) {
    let changed = false;
    const dayPicks = day.picks.map((pick) => {
      const fresh = result.citations.get(pick.arxiv_id);
      const next = fresh ? refreshed(pick.citations, fresh) : pick.citations;
      if (next === pick.citations) return pick;
      changed = true;
      return { ...pick, citations: next };
    });
    if (changed) refreshedDays.push({ ...day, picks: dayPicks });
  }
  return {
    picks,
    refreshedDays,
    run: {
      status: "done",
      papers: ids.length,
      found_semantic_scholar: result.foundBy.semantic_scholar,
      found_openalex: result.foundBy.openalex,
      missing: result.missing,
      refreshed_days: refreshedDays.map((day) => day.date),
      problems: result.problems,
    },
  };
}

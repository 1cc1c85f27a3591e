import { issuedMonth } from "../../pipeline/domain/arxiv-id.ts";
import { addDays } from "../../pipeline/domain/calendar.ts";
import {
  type PapersPage,
  type PapersQuery,
  type QueryCaps,
  queryPapers,
} from "../../pipeline/domain/papers-query.ts";
import type { ScreenedDay, ScreenedPaper } from "../../pipeline/domain/screened.ts";
import { type ScreenedListItem, screenedListItem } from "../../pipeline/domain/screened-answers.ts";
import type { HeldDay } from "./held-days.ts";
import type { SnapshotCache } from "./snapshot-cache.ts";

// The screened scope of the papers queries: every paper a day screened, read from the days' screened
// files (not held with the picks: a day's file is a hundred times its picks), parsed a few weeks at a
// time by the snapshot cache, and filtered exactly as the picks are.

/** Screened files read at once for one query: a year's are a few hundred reads. */
const READS_AT_ONCE = 8;
/** How long after its id's month a paper is looked for: new submissions are announced within days. */
const ANNOUNCED_WITHIN_DAYS = 92;

/** Each parsed screened file's list items, made once per file: held by the caller's state. */
export type ScreenedItems = WeakMap<ScreenedDay, ScreenedListItem[]>;

/** A screened day's papers as list items, made once per parsed file. */
function itemsOf(items: ScreenedItems, day: ScreenedDay): ScreenedListItem[] {
  let list = items.get(day);
  if (!list) {
    list = day.papers.map((paper) => screenedListItem(day, paper));
    items.set(day, list);
  }
  return list;
}

/** The screened files of `dates`, a few at a time, in order; undefined for a day without one. */
async function readScreenedDays(
  snapshots: Pick<SnapshotCache, "readScreened">,
  dates: readonly string[],
): Promise<Array<ScreenedDay | undefined>> {
  const days: Array<ScreenedDay | undefined> = [];
  for (let at = 0; at < dates.length; at += READS_AT_ONCE) {
    days.push(...(await Promise.all(dates.slice(at, at + READS_AT_ONCE).map(snapshots.readScreened))));
  }
  return days;
}

/**
 * One page of screened papers: the days of the query's window (as the picks' query counts it), newest
 * first, each day's papers in the model's order. A day published without a screened file adds none.
 * Throws DayUnavailableError when a screened file cannot be read.
 */
export async function queryScreened(
  snapshots: Pick<SnapshotCache, "readScreened">,
  days: readonly HeldDay[],
  query: PapersQuery,
  caps: QueryCaps,
  items: ScreenedItems,
  offset = 0,
): Promise<PapersPage<ScreenedListItem>> {
  // The window first, as queryPapers computes it, so that only its days are read.
  const { from } = queryPapers(days, query, caps).applied;
  const dates = from === null ? [] : days.filter((day) => day.date >= from).map((day) => day.date);
  const screened = await readScreenedDays(snapshots, dates);
  const window = dates.map((date, at) => {
    const day = screened[at];
    return { date, picks: day ? itemsOf(items, day) : [] };
  });
  return queryPapers(window, query, caps, offset);
}

/** A screened paper and the day that screened it. */
export interface FoundScreened {
  day: ScreenedDay;
  paper: ScreenedPaper;
}

/**
 * The newest day that screened a paper (versionless id), among the days from the month its id was
 * issued in to ANNOUNCED_WITHIN_DAYS after: a paper is never announced before its id exists, and new
 * submissions are announced within days, so a lookup reads a few months of files, not the history.
 */
export async function findScreened(
  snapshots: Pick<SnapshotCache, "readScreened">,
  days: readonly HeldDay[],
  arxivId: string,
): Promise<FoundScreened | undefined> {
  const issued = issuedMonth(arxivId);
  if (issued === undefined) return undefined;
  const until = addDays(issued, ANNOUNCED_WITHIN_DAYS);
  const dates = days.map((day) => day.date).filter((date) => date >= issued && date <= until);
  for (let at = 0; at < dates.length; at += READS_AT_ONCE) {
    const read = await readScreenedDays(snapshots, dates.slice(at, at + READS_AT_ONCE));
    for (const day of read) {
      const paper = day?.papers.find((candidate) => candidate.arxiv_id === arxivId);
      if (day && paper) return { day, paper };
    }
  }
  return undefined;
}

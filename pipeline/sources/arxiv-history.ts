// A past announcement day from the arXiv query API: the papers of the categories submitted in the day's
// window (pipeline/domain/announcement.ts), read page by page. The live listing holds only today; the
// query API's `submittedDate` ranges reach every day since 1991, one query per day for all categories.
// (OAI-PMH was the other way: its `ListRecords` selects by datestamp, the last change of a record, so a
// day's harvest brings every replaced old paper of all of `cs` too, several times the records of the six
// categories, and says nothing of when a paper was submitted.)

import { listingDayOf, submissionWindow } from "../domain/announcement.ts";
import { collectCandidates, type RawRow } from "../domain/candidate-rows.ts";
import type { HttpClient } from "../http.ts";
import { DEFAULT_ARXIV_API_URL } from "./arxiv-api.ts";
import { type ArxivEntry, readApiFeed } from "./arxiv-entries.ts";
import { atomFeed, FeedError } from "./arxiv-xml.ts";
import type { CandidateSource } from "./source.ts";

/** Entries per request: arXiv asks for at most 2000; a day of the six categories is 300 to 1,500 papers. */
export const HISTORY_PAGE_SIZE = 1000;

/** What has been read of one day so far: the checkpoint a resumed run continues from. */
export interface DayPages {
  day: string;
  /** The query these pages answer; a checkpoint of another query is not continued. */
  query: string;
  /** `opensearch:totalResults` of the first page; null before it. */
  total: number | null;
  entries: ArxivEntry[];
  requests: number;
}

export interface HistoryOptions {
  client: HttpClient;
  categories: readonly string[];
  apiUrl?: string;
  pageSize?: number;
}

/** `YYYYMMDDHHMM` in UTC, the form `submittedDate` ranges take (GMT, to the minute, both ends included). */
const minute = (instant: Date): string => instant.toISOString().slice(0, 16).replace(/[-T:]/g, "");

/**
 * The query of a day's submissions in the categories, e.g. `(cat:cs.AI OR cat:cs.LG) AND
 * submittedDate:[...]`. The range reaches a minute past the window on each side, whichever way the
 * API rounds its ends; `historySource` keeps only the papers the schedule lists on the day.
 */
export function dayQuery(categories: readonly string[], day: string): string {
  const { from, to } = submissionWindow(day);
  const first = new Date(from.getTime() - 60_000);
  const cats = categories.map((category) => `cat:${category}`).join(" OR ");
  return `(${cats}) AND submittedDate:[${minute(first)} TO ${minute(to)}]`;
}

/**
 * The answers of a day contradict each other (its total changed twice, or entries came twice while
 * others were missed): the pages read are worth nothing, and a retry reads the day from its start.
 */
export class InconsistentDayError extends FeedError {
  override name = "InconsistentDayError";
}

function pageUrl(apiUrl: string, query: string, start: number, size: number): string {
  const url = new URL(apiUrl);
  url.searchParams.set("search_query", query);
  url.searchParams.set("sortBy", "submittedDate");
  url.searchParams.set("sortOrder", "ascending");
  url.searchParams.set("start", String(start));
  url.searchParams.set("max_results", String(size));
  return url.toString();
}

/** A fresh checkpoint for a day, or the given one when it answers the same query. */
export function startDay(options: HistoryOptions, day: string, saved?: DayPages | null): DayPages {
  const query = dayQuery(options.categories, day);
  if (saved && saved.day === day && saved.query === query) return saved;
  return { day, query, total: null, entries: [], requests: 0 };
}

/**
 * Reads the pages of a day not read yet, one request at a time, calling `onPage` after each (the
 * checkpoint). A page that is not a feed, refuses the query, or holds fewer entries than the total
 * leaves fails the day; so does a total of 0, which for a weekday's window of whole categories is
 * the API's known fault of answering empty feeds for a while, not a day without papers. A total that
 * changes between pages (a paper withdrawn or cross-listed meanwhile) reads the day again from its
 * start, once.
 */
export async function readDayPages(
  options: HistoryOptions,
  pages: DayPages,
  onPage: (pages: DayPages) => Promise<void>,
): Promise<DayPages> {
  const apiUrl = options.apiUrl ?? DEFAULT_ARXIV_API_URL;
  const size = options.pageSize ?? HISTORY_PAGE_SIZE;
  let state = pages;
  let restarted = false;
  while (state.total === null || state.entries.length < state.total) {
    const start = state.entries.length;
    const what = `arXiv API (${state.day}, entries from ${start + 1})`;
    const response = await options.client.send({
      url: pageUrl(apiUrl, state.query, start, size),
      upstream: "arxiv",
      headers: { accept: "application/atom+xml" },
    });
    const feed = readApiFeed(atomFeed(response.text, what));
    if (feed.errors.length > 0) throw new FeedError(`${what} refused the query: ${feed.errors.join("; ")}`);
    if (feed.totalResults === undefined)
      throw new FeedError(`${what}: the answer has no opensearch:totalResults`);
    if (feed.totalResults === 0) {
      throw new FeedError(
        `${what}: the API answered 0 papers for the submissions of a weekday; it answers empty feeds ` +
          "for a while when in trouble",
      );
    }
    if (state.total !== null && feed.totalResults !== state.total) {
      const changed = `${what}: the total changed from ${state.total} to ${feed.totalResults} between pages`;
      if (restarted) throw new InconsistentDayError(`${changed}, again after reading the day from its start`);
      restarted = true;
      state = { ...state, total: null, entries: [], requests: state.requests + 1 };
      continue;
    }
    const expected = Math.min(size, feed.totalResults - start);
    if (feed.entries.length !== expected) {
      throw new FeedError(
        `${what}: the answer says ${feed.totalResults} results in all but holds ${feed.entries.length} ` +
          `entries where ${expected} were due (a truncated or partial answer)`,
      );
    }
    state = {
      ...state,
      total: feed.totalResults,
      entries: [...state.entries, ...feed.entries],
      requests: state.requests + 1,
    };
    await onPage(state);
  }
  const distinct = new Set(state.entries.map((entry) => entry.id)).size;
  if (distinct < state.entries.length) {
    throw new InconsistentDayError(
      `arXiv API (${state.day}): ${state.entries.length - distinct} entries came twice across pages, so as ` +
        "many were missed (the results moved while they were paged)",
    );
  }
  return state;
}

/** The papers a day's pages hold as a candidate source: those the schedule lists on that day. */
export function historySource(categories: readonly string[], pages: DayPages): CandidateSource {
  const name = `arxiv-api:${categories.join("+")}`;
  return {
    name,
    async load(date) {
      if (date !== pages.day) throw new Error(`the pages read are of ${pages.day}, not ${date}`);
      const listed = pages.entries.filter(
        (entry) => entry.published === undefined || listingDayOf(new Date(entry.published)) === date,
      );
      const rows: RawRow[] = listed.map((entry, index) => ({
        value: {
          id: entry.id,
          title: entry.title,
          summary: entry.summary,
          authors: entry.authors,
          categories: entry.categories,
          ...(entry.comment ? { comment: entry.comment } : {}),
        },
        where: `query API entry ${index + 1} (${entry.rawId})`,
      }));
      const batch = collectCandidates(rows, { source: name, sample: false });
      const outside = pages.entries.length - listed.length;
      batch.notes = [
        `query API: ${pages.requests} request${pages.requests === 1 ? "" : "s"} in this run for ` +
          `${pages.total ?? 0} papers submitted in the window of ${date} (${pages.query})` +
          (outside > 0 ? `; ${outside} submitted outside the window left out` : ""),
      ];
      return batch;
    },
  };
}

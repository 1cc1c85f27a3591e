import { z } from "zod";
import type { DailySnapshot } from "./snapshot.ts";

/**
 * One pick as the archive search sees it: `id` is its position in the index (small numbers keep the
 * file small). A paper picked on two days is two results, each linking to its own day.
 */
export interface SearchDocument {
  id: number;
  arxiv_id: string;
  date: string;
  rank: number;
  title: string;
  authors: string;
  /** The first authors, for display: the whole list is searchable but not repeated in every result. */
  byline: string;
  summary: string;
  total: number;
  reg_fit: number;
}

/** The fields the index matches on, and the ones each result carries for display. */
export const SEARCH_FIELDS = ["title", "authors", "summary", "arxiv_id"] as const;
export const SEARCH_STORE_FIELDS = [
  "arxiv_id",
  "date",
  "rank",
  "title",
  "byline",
  "total",
  "reg_fit",
] as const;

/** Bumped whenever the document shape or the index options change; the page refuses other versions. */
export const SEARCH_INDEX_VERSION = 1;

const BYLINE_AUTHORS = 3;

const byline = (authors: readonly string[]): string =>
  authors.length <= BYLINE_AUTHORS
    ? authors.join(", ")
    : `${authors.slice(0, BYLINE_AUTHORS).join(", ")} and ${authors.length - BYLINE_AUTHORS} more`;

/** The search documents of every published day, newest day first, then by rank. */
export function searchDocuments(days: readonly DailySnapshot[]): SearchDocument[] {
  return [...days]
    .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0))
    .flatMap((day) =>
      [...day.picks]
        .sort((a, b) => a.rank - b.rank)
        .map((pick) => ({
          id: 0,
          arxiv_id: pick.arxiv_id,
          date: day.date,
          rank: pick.rank,
          title: pick.title,
          authors: pick.authors.join(", "),
          byline: byline(pick.authors),
          summary: pick.summary,
          total: pick.scores.total,
          reg_fit: pick.scores.reg_fit.score,
        })),
    )
    .map((document, index) => ({ ...document, id: index }));
}

/**
 * Words too common in abstracts to narrow a search: left out of the index (smaller file), and a
 * query made of them alone finds nothing rather than everything.
 */
export const SEARCH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be been being both but by can could do does for from has have how if in into is " +
    "it its may might not of on or our so than that the their them then there these they this those to " +
    "was we were what when where which while who with would"
  ).split(" "),
);

/** What `picks curate` records about the search index it wrote. */
export const SearchIndexRunSchema = z.object({
  path: z.string(),
  documents: z.int().min(0).describe("picks in the index, one per day a paper was picked"),
  bytes: z.int().min(0).describe("size of the file as written"),
  gzip_bytes: z.int().min(0).describe("size after gzip, about what a static host or CDN transfers"),
});
export type SearchIndexRun = z.infer<typeof SearchIndexRunSchema>;

import { z } from "zod";
import { type PaperListItem, PaperListItemSchema } from "./api-answers.ts";
import type { Pick } from "./pick.ts";
import type { DailySnapshot } from "./snapshot.ts";

/**
 * The list item of a pick (`GET /v1/papers`): everything filtering, sorting and listing need, without
 * the summary and the evidence, which are most of a day's weight. Keys in the answer's order.
 */
export function listItem(pick: Pick): PaperListItem {
  const axes = {} as PaperListItem["axes"];
  for (const [axis, value] of Object.entries(pick.scores.axes)) axes[axis as keyof typeof axes] = value.score;
  return {
    arxiv_id: pick.arxiv_id,
    date: pick.date,
    rank: pick.rank,
    title: pick.title,
    authors: pick.authors,
    categories: pick.categories,
    abs_url: pick.abs_url,
    pdf_url: pick.pdf_url,
    total: pick.scores.total,
    ...(pick.relevance?.must_read === undefined ? {} : { must_read: pick.relevance.must_read }),
    reg_fit: pick.scores.reg_fit.score,
    axes,
    scorer: pick.scores.scorer,
    rubric_version: pick.scores.rubric_version,
  };
}

/**
 * The index's file under `v1/`: JSON Lines, one `IndexedDay` per line, newest first. Written by curate
 * beside the days, so a server starts from it instead of parsing ten years of day files in full; a
 * line at a time, so reading it never holds the whole file and its parse at once.
 */
export const PICKS_INDEX_FILE = "picks-index.jsonl";

export const IndexedDaySchema = z.object({
  date: z.string(),
  bytes: z.int().min(0).describe("size of the day's file as written, so a reader can tell it is unchanged"),
  picks: z.array(PaperListItemSchema),
});
export type IndexedDay = z.infer<typeof IndexedDaySchema>;

/** The index of `days`, newest first; `bytes` gives each day's file size by date. */
export function buildPicksIndex(
  days: readonly DailySnapshot[],
  bytes: ReadonlyMap<string, number>,
): IndexedDay[] {
  return [...days]
    .sort((a, b) => (a.date < b.date ? 1 : -1))
    .map((day) => ({ date: day.date, bytes: bytes.get(day.date) ?? 0, picks: day.picks.map(listItem) }));
}

/** The index file's content: one day per line. */
export function picksIndexLines(days: readonly IndexedDay[]): string {
  return days.map((day) => `${JSON.stringify(day)}\n`).join("");
}

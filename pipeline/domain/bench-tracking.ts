import { z } from "zod";
import type { Citations } from "./citations.ts";

// A watched paper's citation figures as the index reported them on each published day; deltas are
// differences between two of those records, never a figure of our own.

export const CitingPaperSchema = z.object({
  title: z.string().nullable(),
  arxiv_id: z.string().nullable(),
  year: z.int().nullable(),
});
export type CitingPaper = z.infer<typeof CitingPaperSchema>;

export const WatchedFiguresSchema = z.object({
  arxiv_id: z.string(),
  found: z.boolean(),
  source: z.string().nullable(),
  citation_count: z.int().min(0).nullable(),
  influential_citation_count: z.int().min(0).nullable(),
  citing: z
    .array(CitingPaperSchema)
    .describe("citing papers the index listed (at most 10, most cited first)"),
  reason: z.string().nullable().describe("why there are no figures, when there are none"),
});
export type WatchedFigures = z.infer<typeof WatchedFiguresSchema>;

/** Every watched paper's figures on one published day. */
export const TrackingDaySchema = z.object({
  date: z.string(),
  papers: z.array(WatchedFiguresSchema),
});
export type TrackingDay = z.infer<typeof TrackingDaySchema>;

/** The figures kept of one lookup answer. */
export function watchedFigures(arxivId: string, citations: Citations | undefined): WatchedFigures {
  if (!citations || citations.status === "missing") {
    return {
      arxiv_id: arxivId,
      found: false,
      source: null,
      citation_count: null,
      influential_citation_count: null,
      citing: [],
      reason: citations?.reason ?? "not looked up",
    };
  }
  return {
    arxiv_id: arxivId,
    found: true,
    source: citations.source,
    citation_count: citations.citation_count,
    influential_citation_count: citations.influential_citation_count,
    citing: citations.top_citing.map(({ title, arxiv_id, year }) => ({ title, arxiv_id, year })),
    reason: null,
  };
}

export const CitationChangeSchema = z.object({
  arxiv_id: z.string(),
  from_date: z.string().nullable(),
  from: z.int().nullable().describe("the count before the period (or at its first record)"),
  to_date: z.string().nullable(),
  to: z.int().nullable(),
  change: z.int().nullable().describe("to - from; null when either is unknown"),
  new_citing: z.array(CitingPaperSchema).describe("citing papers listed at the end and not at the start"),
});
export type CitationChange = z.infer<typeof CitationChangeSchema>;

const citingKey = (paper: CitingPaper): string => paper.arxiv_id ?? `title:${paper.title ?? ""}`;

/**
 * Each watched paper's change over a period: from its last record before `since` (else its first
 * record in the period) to its last record in the period. `days` in any order.
 */
export function citationChanges(
  papers: readonly string[],
  days: readonly TrackingDay[],
  since: string,
  until: string,
): CitationChange[] {
  const ordered = [...days].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return papers.map((arxivId) => {
    const records = ordered.flatMap((day) => {
      const figures = day.papers.find((paper) => paper.arxiv_id === arxivId);
      return figures?.found && day.date <= until ? [{ date: day.date, figures }] : [];
    });
    const inside = records.filter((record) => record.date >= since);
    const before = records.filter((record) => record.date < since).at(-1);
    const start = before ?? inside[0];
    const end = inside.at(-1);
    const from = start?.figures.citation_count ?? null;
    const to = end?.figures.citation_count ?? null;
    const known = new Set((start?.figures.citing ?? []).map(citingKey));
    const newCiting =
      start && end && start !== end ? end.figures.citing.filter((p) => !known.has(citingKey(p))) : [];
    return {
      arxiv_id: arxivId,
      from_date: start?.date ?? null,
      from,
      to_date: end?.date ?? null,
      to,
      change: from !== null && to !== null && end ? to - from : null,
      new_citing: newCiting,
    };
  });
}

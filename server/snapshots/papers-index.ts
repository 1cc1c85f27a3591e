import type { PaperListItem } from "../../pipeline/domain/api-answers.ts";
import { baseArxivId } from "../../pipeline/domain/arxiv-id.ts";
import type { HeldDay } from "./held-days.ts";

export interface PapersIndex {
  /** Days newest first, their picks in rank order: the shape `queryPapers` takes. */
  days: readonly HeldDay[];
  /** The newest pick of each paper, by versionless arXiv id. */
  byId: Map<string, PaperListItem>;
}

/** The index of a snapshot generation (context.papers builds it once per generation). */
export function papersIndex(days: readonly HeldDay[]): PapersIndex {
  const byId = new Map<string, PaperListItem>();
  for (const day of days) {
    for (const pick of day.picks) {
      const id = baseArxivId(pick.arxiv_id);
      if (!byId.has(id)) byId.set(id, pick);
    }
  }
  return { days, byId };
}

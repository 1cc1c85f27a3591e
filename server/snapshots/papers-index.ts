import type { PaperListItem } from "../../pipeline/domain/api-answers.ts";
import { baseArxivId } from "../../pipeline/domain/arxiv-id.ts";
import type { HeldDay } from "./held-days.ts";

export interface PapersIndex {
  /** Days newest first, their picks in rank order: the shape `queryPapers` takes. */
  days: readonly HeldDay[];
  /** The newest pick of each paper, by versionless arXiv id. */
  byId: Map<string, PaperListItem>;
}

const cache = new WeakMap<readonly HeldDay[], PapersIndex>();

/** The index of a snapshot generation, built once: the cache swaps its days array whole on reload. */
export function papersIndex(days: readonly HeldDay[]): PapersIndex {
  let index = cache.get(days);
  if (index) return index;
  const byId = new Map<string, PaperListItem>();
  for (const day of days) {
    for (const pick of day.picks) {
      const id = baseArxivId(pick.arxiv_id);
      if (!byId.has(id)) byId.set(id, pick);
    }
  }
  index = { days, byId };
  cache.set(days, index);
  return index;
}

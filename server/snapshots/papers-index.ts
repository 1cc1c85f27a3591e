import type { Pick } from "../../pipeline/domain/pick.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";

/** A pick's list form, serialised once per snapshot generation rather than once per request. */
export interface IndexedPick {
  pick: Pick;
  /** JSON of the compact list item (scores without evidence). */
  compactJson: string;
  /** JSON of the full pick, as `/v1/papers/{arxiv_id}` sends it. */
  readonly fullJson: string;
}

export interface PapersIndex {
  /** Days newest first, their picks in rank order: the shape `queryPapers` takes. */
  days: ReadonlyArray<{ date: string; picks: Pick[] }>;
  byPick: WeakMap<Pick, IndexedPick>;
  /** The newest pick of each paper, by versionless arXiv id. */
  byId: Map<string, IndexedPick>;
}

/** The list item of GET /v1/papers: what a client needs to choose, without the evidence. */
export function compactPick(pick: Pick) {
  const axes: Record<string, number> = {};
  for (const [axis, value] of Object.entries(pick.scores.axes)) axes[axis] = value.score;
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
    reg_fit: pick.scores.reg_fit.score,
    axes,
    scorer: pick.scores.scorer,
    rubric_version: pick.scores.rubric_version,
  };
}

const cache = new WeakMap<readonly DailySnapshot[], PapersIndex>();

/** The index of a snapshot generation, built once: the cache swaps its days array whole on reload. */
export function papersIndex(
  days: readonly DailySnapshot[],
  fullPick: (pick: Pick) => Pick = (pick) => pick,
): PapersIndex {
  let index = cache.get(days);
  if (index) return index;
  const byPick = new WeakMap<Pick, IndexedPick>();
  const byId = new Map<string, IndexedPick>();
  for (const day of days) {
    for (const pick of day.picks) {
      const indexed: IndexedPick = {
        pick,
        compactJson: JSON.stringify(compactPick(pick)),
        // Made when asked for and not kept: the full form is rare, and keeping it would double what
        // a day weighs in memory.
        get fullJson() {
          return JSON.stringify(fullPick(pick));
        },
      };
      byPick.set(pick, indexed);
      if (!byId.has(pick.arxiv_id)) byId.set(pick.arxiv_id, indexed);
    }
  }
  index = { days: days.map((day) => ({ date: day.date, picks: day.picks })), byPick, byId };
  cache.set(days, index);
  return index;
}

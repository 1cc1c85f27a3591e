import { AUTHORS_MAX, type Profile } from "../pipeline/domain/reader-profile.ts";
import type { SimPaper } from "../pipeline/domain/reader-simulation.ts";

// A stored reader profile over simulated papers, as the reader benches seed their stores with.
export function simProfile(
  library: SimPaper[],
  ratings: Profile["ratings"],
  follows: Profile["follows"],
): Profile {
  return {
    version: 1,
    updated_at: "2026-11-29T08:00:00.000Z",
    library: library.map((paper) => ({
      key: `arxiv:${paper.id}`,
      arxiv_id: paper.id,
      doi: null,
      title: paper.title,
      abstract: paper.summary,
      authors: paper.authors.slice(0, AUTHORS_MAX),
    })),
    ratings,
    follows,
  };
}

import { z } from "zod";
import type { Candidate } from "./candidate.ts";
import { CitationsSchema } from "./citations.ts";
import { type Ranking, RankReasonSchema, RelevanceSchema } from "./relevance-model.ts";
import { type Scores, ScoresSchema } from "./score.ts";

/** A kept paper as published: the candidate, where to read it, its rank that day and its scores. */
export const PickSchema = z.object({
  arxiv_id: z.string(),
  date: z.string().describe("the announcement day it was picked on"),
  rank: z.int().min(1),
  title: z.string(),
  authors: z.array(z.string()),
  categories: z.array(z.string()),
  summary: z.string(),
  abs_url: z.string(),
  pdf_url: z.string(),
  scores: ScoresSchema,
  relevance: RelevanceSchema.optional().describe(
    "the relevance model's heads and must-read likelihood; absent when the rules ranked",
  ),
  why_ranked: z
    .array(RankReasonSchema)
    .optional()
    .describe("the terms that raised the paper's rank score most"),
  citations: CitationsSchema.nullable()
    .optional()
    .describe(
      "citation-graph data: found (with source and fetch time) or missing (with the reason); null when the " +
        "run did not look citations up (offline source or --no-citations); absent in snapshots written " +
        "before citations existed",
    ),
});
export type Pick = z.infer<typeof PickSchema>;

/** Builds the published form of a kept candidate; citations are attached later by the enrich stage. */
export function toPick(
  candidate: Candidate,
  scores: Scores,
  date: string,
  rank: number,
  ranking?: Ranking,
): Pick {
  return {
    arxiv_id: candidate.id,
    date,
    rank,
    title: candidate.title,
    authors: candidate.authors,
    categories: candidate.categories,
    summary: candidate.summary,
    abs_url: `https://arxiv.org/abs/${candidate.id}`,
    pdf_url: `https://arxiv.org/pdf/${candidate.id}`,
    scores,
    ...(ranking ? { relevance: ranking.relevance, why_ranked: ranking.why_ranked } : {}),
    citations: null,
  };
}

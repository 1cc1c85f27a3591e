// The relevance model: what `picks train` writes to data/models/ and curate ranks with. It holds the
// vocabulary and weights only, never paper text, and carries what it was trained on and how it scored
// on days it did not see, so the file is its own card.

import { z } from "zod";
import { sigmoid } from "./logistic-regression.ts";
import { type RankedText, termCounts, tfidfRow, type Vocabulary } from "./relevance-features.ts";

export const RELEVANCE_FORMAT = 1;
const VERSION = /^relevance-\d{4}\.\d{2}\.\d+$/;

export const RelevanceHeadSchema = z.object({
  c: z.number().positive().describe("inverse regularisation strength chosen by leave-one-day-out"),
  intercept: z.number(),
  weights: z.array(z.number()).describe("one weight per vocabulary term, in vocabulary order"),
});

/** One day's leave-one-day-out figures: trained on the other days, measured on this one. */
export const HeldOutDaySchema = z.object({
  date: z.string(),
  papers: z.int().min(0),
  top_labels: z.int().min(0).describe("label-2 papers of the day"),
  recall_top10: z.number().nullable(),
  auc: z.number().nullable().describe("AUC of label 2 against label 0 by rank_score"),
  auc_on_topic: z.number().nullable().describe("AUC of label >= 1 against label 0 by rank_score"),
});
export type HeldOutDay = z.infer<typeof HeldOutDaySchema>;

export const TrainingDaySchema = z.object({
  date: z.string(),
  papers: z.int().min(0),
  label_counts: z.object({ top: z.int().min(0), on_topic: z.int().min(0), off_mission: z.int().min(0) }),
});
export type TrainingDay = z.infer<typeof TrainingDaySchema>;

export const FeatureSettingsSchema = z.object({
  ngrams: z.int().min(1).max(3),
  title_terms: z.boolean(),
  min_df: z.int().min(1),
});

export const RelevanceModelSchema = z
  .object({
    format: z.literal(RELEVANCE_FORMAT).describe("the file format; a reader refuses any other"),
    version: z.string().regex(VERSION).describe("relevance-YYYY.MM.N"),
    rank_score: z.string().describe("how the heads combine into the ranking score"),
    features: FeatureSettingsSchema,
    vocabulary: z.array(z.string()),
    idf: z.array(z.number().positive()),
    heads: z.object({
      on_topic: RelevanceHeadSchema.describe("P(label >= 1): on topic or a must-read"),
      top: RelevanceHeadSchema.describe("P(label 2): a must-read"),
    }),
    training: z.object({
      days: z.array(TrainingDaySchema),
      papers: z.int().min(0),
      grid: z.array(z.number().positive()).describe("the values of c tried for each head"),
    }),
    cross_validation: z
      .array(HeldOutDaySchema)
      .describe("leave-one-day-out figures of the same training procedure, one per training day"),
  })
  .superRefine((model, context) => {
    const size = model.vocabulary.length;
    const lengths = [model.idf.length, model.heads.on_topic.weights.length, model.heads.top.weights.length];
    if (lengths.some((length) => length !== size)) {
      context.addIssue({
        code: "custom",
        message: `idf and weights must have ${size} entries, one per term`,
      });
    }
  });
export type RelevanceModel = z.infer<typeof RelevanceModelSchema>;

/** The model's view of one candidate: each head's probability and the ranking score built from them. */
export const RelevanceSchema = z.object({
  on_topic: z.number().min(0).max(1).describe("P(on topic or must-read), from the relevance model"),
  top: z.number().min(0).max(1).describe("P(must-read), from the relevance model"),
});
export type Relevance = z.infer<typeof RelevanceSchema>;

/** A term that moved a paper up (or down) the ranking, with its contribution to the two heads' logits. */
export const RankReasonSchema = z.object({
  term: z.string().describe("a word, a word pair, `title:` words, or `cat:`/`primary:` an arXiv category"),
  contribution: z.number(),
});
export type RankReason = z.infer<typeof RankReasonSchema>;

export const RANK_SCORE_RULE = "rank_score = (relevance.on_topic + relevance.top) / 2, from 0 to 1";
export const WHY_RANKED_SHOWN = 5;

export interface Ranking {
  relevance: Relevance;
  rank_score: number;
  /** The terms with the largest positive contributions, largest first. */
  why_ranked: RankReason[];
}

/** A model ready to rank: its vocabulary as a lookup table. */
export interface CompiledRelevance {
  model: RelevanceModel;
  vocabulary: Vocabulary;
}

export function compileRelevance(model: RelevanceModel): CompiledRelevance {
  return {
    model,
    vocabulary: { column: new Map(model.vocabulary.map((term, i) => [term, i])), idf: model.idf },
  };
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/**
 * Ranks one paper: both heads' probabilities, the rank score and the terms that raised it most.
 * @example rankPaper(compiled, candidate).rank_score // 0.83
 */
export function rankPaper(compiled: CompiledRelevance, paper: RankedText): Ranking {
  const { model, vocabulary } = compiled;
  const row = tfidfRow(termCounts(paper, model.features), vocabulary);
  let onTopic = model.heads.on_topic.intercept;
  let top = model.heads.top.intercept;
  const reasons: RankReason[] = [];
  for (let k = 0; k < row.indices.length; k++) {
    const column = row.indices[k] as number;
    const value = row.values[k] as number;
    const on = value * (model.heads.on_topic.weights[column] as number);
    const must = value * (model.heads.top.weights[column] as number);
    onTopic += on;
    top += must;
    if (on + must > 0) reasons.push({ term: model.vocabulary[column] as string, contribution: on + must });
  }
  reasons.sort((a, b) => b.contribution - a.contribution || (a.term < b.term ? -1 : 1));
  const relevance = { on_topic: round(sigmoid(onTopic), 4), top: round(sigmoid(top), 4) };
  return {
    relevance,
    rank_score: round((relevance.on_topic + relevance.top) / 2, 4),
    why_ranked: reasons
      .slice(0, WHY_RANKED_SHOWN)
      .map((reason) => ({ term: reason.term, contribution: round(reason.contribution, 3) })),
  };
}

/**
 * The model file, or what is wrong with it in one line.
 * @example readRelevanceModel(JSON.parse(text)) // { model } or { problem: "format: ..." }
 */
export function readRelevanceModel(json: unknown): { model: RelevanceModel } | { problem: string } {
  if (typeof json === "object" && json !== null && "format" in json && json.format !== RELEVANCE_FORMAT) {
    return {
      problem: `format ${JSON.stringify(json.format)} is not one this version reads (${RELEVANCE_FORMAT})`,
    };
  }
  const parsed = RelevanceModelSchema.safeParse(json);
  if (parsed.success) return { model: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "the document";
  return { problem: `${where}: ${issue?.message ?? "invalid"}` };
}

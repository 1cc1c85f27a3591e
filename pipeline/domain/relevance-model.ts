// The relevance model: what `picks train` writes to data/models/ and curate ranks with. It holds the
// vocabulary and weights only, never paper text, and carries what it was trained on and how it scored
// on days it did not see, so the file is its own card.

import { z } from "zod";
import { CalibrationSchema, calibrate } from "./calibration.ts";
import { sigmoid } from "./logistic-regression.ts";
import { NestedEvaluationSchema } from "./nested-evaluation.ts";
import { PromotionSchema } from "./promotion.ts";
import { type RankedText, rankedWords, termCounts, tfidfRow, type Vocabulary } from "./relevance-features.ts";
import { type CompiledVectors, compileVectors, documentVector } from "./word-embeddings.ts";
import { CorpusCardSchema, vectorsOfFile, WordVectorsFileSchema } from "./word-vectors-file.ts";

export const RELEVANCE_FORMAT = 2;
const VERSION = /^relevance-\d{4}\.\d{2}\.\d+$/;

export const RelevanceHeadSchema = z.object({
  c: z.number().positive().describe("inverse regularisation strength chosen by leave-one-day-out"),
  intercept: z.number(),
  weights: z.array(z.number()).describe("one weight per vocabulary term, in vocabulary order"),
  vector_weights: z
    .array(z.number())
    .optional()
    .describe("one weight per dimension of the paper's word vector, for a head that reads it"),
});

export const EMBEDDED_HEADS = ["on_topic", "top", "regulated"] as const;

/** Word vectors learned offline from unlabelled listings (`picks embed`), shipped inside the model. */
export const ModelEmbeddingSchema = WordVectorsFileSchema.safeExtend({
  corpus: CorpusCardSchema,
  weight: z.number().positive().describe("the paper vector's scale beside its unit-length tf-idf terms"),
  heads: z.array(z.enum(EMBEDDED_HEADS)).min(1).describe("the heads that read the paper vector"),
});

/** One day's leave-one-day-out figures: trained on the other days, measured on this one. */
export const HeldOutDaySchema = z.object({
  date: z.string(),
  papers: z.int().min(0),
  top_labels: z.int().min(0).describe("label-2 papers of the day"),
  recall_top10: z.number().nullable(),
  average_precision: z.number().nullable().describe("average precision of label-2 papers by rank_score"),
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
      regulated: RelevanceHeadSchema.describe(
        "P(REG FIT 3): an expert judged it likely to pass a regulated review",
      ),
    }),
    regulated_weight: z
      .number()
      .min(0)
      .describe("how much the regulated head adds to the rank score, chosen by leave-one-day-out"),
    calibration: CalibrationSchema.describe(
      "turns the rank score into the must-read likelihood, fitted on out-of-fold scores",
    ),
    training: z.object({
      days: z.array(TrainingDaySchema),
      papers: z.int().min(0),
      grid: z.array(z.number().positive()).describe("the values of c tried for each head"),
      regulated_weights: z.array(z.number().min(0)).describe("the regulated head's weights tried"),
    }),
    cross_validation: z
      .array(HeldOutDaySchema)
      .describe("leave-one-day-out figures of the same training procedure, one per training day"),
    promotion: PromotionSchema.optional().describe(
      "how it was measured against the model it replaced; absent for a model written aside with `--out`",
    ),
    embedding: ModelEmbeddingSchema.optional().describe(
      "word vectors learned offline from unlabelled days; each paper's idf-weighted mean vector is a feature of the heads named",
    ),
    nested: NestedEvaluationSchema.optional().describe(
      "its procedure and the shipped selection measured nested by day (`picks eval --cross-validate --compare-selections --record`)",
    ),
  })
  .superRefine((model, context) => {
    const size = model.vocabulary.length;
    const lengths = [model.idf.length, ...Object.values(model.heads).map((head) => head.weights.length)];
    if (lengths.some((length) => length !== size)) {
      context.addIssue({
        code: "custom",
        message: `idf and weights must have ${size} entries, one per term`,
      });
    }
    const dims = model.embedding?.settings.dims;
    for (const name of EMBEDDED_HEADS) {
      const reads = model.embedding?.heads.includes(name) ?? false;
      const length = model.heads[name].vector_weights?.length;
      if (reads ? length !== dims : length !== undefined) {
        context.addIssue({
          code: "custom",
          path: ["heads", name, "vector_weights"],
          message: reads
            ? `the ${name} head reads the word vectors: ${dims} vector weights expected`
            : `the ${name} head does not read word vectors: no vector weights expected`,
        });
      }
    }
  });
export type RelevanceModel = z.infer<typeof RelevanceModelSchema>;

/** The model's view of one candidate: each head's probability and the ranking score built from them. */
export const RelevanceSchema = z.object({
  on_topic: z.number().min(0).max(1).describe("the on-topic head (label 1 or 2)"),
  top: z.number().min(0).max(1).describe("the must-read head, before calibration"),
  regulated: z.number().min(0).max(1).describe("the REG FIT 3 head"),
  must_read: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe("calibrated chance (0..1) an expert calls it a must-read"),
});
export type Relevance = z.infer<typeof RelevanceSchema>;

/** A term that moved a paper up (or down) the ranking, with its contribution to the two heads' logits. */
export const RankReasonSchema = z.object({
  term: z
    .string()
    .describe(
      "a word, a word pair, `title:` words, `cat:`/`primary:` an arXiv category, or `vector:` the paper's word vector",
    ),
  contribution: z.number(),
});
export type RankReason = z.infer<typeof RankReasonSchema>;

/**
 * The rank score, from 0 to 1: the two relevance heads, plus the regulated head counted only as far as the
 * paper is on topic (a paper about regulated settings that is off mission must not rise by it).
 */
export function rankScoreOf(relevance: Relevance, regulatedWeight: number): number {
  const { on_topic: onTopic, top, regulated } = relevance;
  return (onTopic + top + regulatedWeight * onTopic * regulated) / (2 + regulatedWeight);
}

/** The rank score's rule in words, for the model file and the ranker card. */
export function rankScoreRule(regulatedWeight: number): string {
  return (
    `rank_score = (on_topic + top + ${regulatedWeight} * on_topic * regulated) / ${2 + regulatedWeight}, ` +
    "from 0 to 1, with each head's probability from the relevance model"
  );
}

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
  vectors?: CompiledVectors;
}

export function compileRelevance(model: RelevanceModel): CompiledRelevance {
  return {
    model,
    vocabulary: { column: new Map(model.vocabulary.map((term, i) => [term, i])), idf: model.idf },
    ...(model.embedding ? { vectors: compileVectors(vectorsOfFile(model.embedding)) } : {}),
  };
}

/** The reason a paper's word vector gives, beside its terms. */
export const VECTOR_REASON = "vector: wording like the labelled papers'";

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/**
 * Ranks one paper: both heads' probabilities, the rank score and the terms that raised it most.
 * @example rankPaper(compiled, candidate).rank_score // 0.83
 */
export function rankPaper(compiled: CompiledRelevance, paper: RankedText): Ranking {
  const { model, vocabulary } = compiled;
  const row = tfidfRow(termCounts(paper, model.features), vocabulary);
  const { on_topic: onHead, top: topHead, regulated: regulatedHead } = model.heads;
  let onTopic = onHead.intercept;
  let top = topHead.intercept;
  let regulated = regulatedHead.intercept;
  const reasons: RankReason[] = [];
  for (let k = 0; k < row.indices.length; k++) {
    const column = row.indices[k] as number;
    const value = row.values[k] as number;
    const on = value * (onHead.weights[column] as number);
    const must = value * (topHead.weights[column] as number);
    const fit = value * (regulatedHead.weights[column] as number);
    onTopic += on;
    top += must;
    regulated += fit;
    // Each head's logit share, the regulated head by its weight in the rank score.
    const contribution = on + must + model.regulated_weight * fit;
    if (contribution > 0) reasons.push({ term: model.vocabulary[column] as string, contribution });
  }
  const embedding = model.embedding;
  if (compiled.vectors && embedding) {
    const vector = documentVector(compiled.vectors, [
      ...rankedWords(paper.title),
      ...rankedWords(paper.summary),
    ]);
    const dense = (head: RelevanceModel["heads"]["top"]) => {
      let sum = 0;
      const weights = head.vector_weights ?? [];
      for (let d = 0; d < weights.length; d++)
        sum += (vector[d] as number) * embedding.weight * (weights[d] as number);
      return sum;
    };
    const [on, must, fit] = [dense(onHead), dense(topHead), dense(regulatedHead)];
    onTopic += on;
    top += must;
    regulated += fit;
    const contribution = on + must + model.regulated_weight * fit;
    if (contribution > 0) reasons.push({ term: VECTOR_REASON, contribution });
  }
  reasons.sort((a, b) => b.contribution - a.contribution || (a.term < b.term ? -1 : 1));
  const heads = {
    on_topic: round(sigmoid(onTopic), 4),
    top: round(sigmoid(top), 4),
    regulated: round(sigmoid(regulated), 4),
  };
  const rankScore = round(rankScoreOf(heads, model.regulated_weight), 4);
  return {
    relevance: { ...heads, must_read: round(calibrate(model.calibration, rankScore), 4) },
    rank_score: rankScore,
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

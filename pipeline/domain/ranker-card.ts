// `v1/ranker.json`: what orders the picks, published beside the rubric (`axes.json`) so a reader can
// see what the ranker learned from, how it scored on days it never saw, and what it cannot see.

import { z } from "zod";
import { CalibrationSchema } from "./calibration.ts";
import { NestedEvaluationSchema } from "./nested-evaluation.ts";
import { PromotionSchema } from "./promotion.ts";
import { HeldOutDaySchema, type RelevanceModel, TrainingDaySchema } from "./relevance-model.ts";

export const RANKER_LIMITS = [
  "It reads the title, abstract and arXiv categories only: not the full text, the code, the authors' record or citations.",
  "It learned from a few labelled days; topics those days did not hold rank by their words alone.",
  "Its leave-one-day-out figures choose its settings on the same days, so they are slightly optimistic; the nested figures are not.",
  "It orders and chooses the picks; it does not explain them. The rubric's axis evidence and REG FIT say why a pick serves a regulated reader; they no longer turn a pick away.",
  "Its must-read likelihood is calibrated on the labelled days: on a day unlike them (a new topic, a new field), it is a guess.",
] as const;

export const RankerCardSchema = z.object({
  ranker: z
    .enum(["model", "rules"])
    .describe("model: the relevance model orders candidates; rules: the rubric's total"),
  model_version: z.string().nullable(),
  rank_score: z
    .string()
    .nullable()
    .describe("how the model's heads combine into the score candidates are ranked by"),
  features: z.string().nullable(),
  trained_on: z.array(TrainingDaySchema),
  cross_validation: z
    .array(HeldOutDaySchema)
    .describe("per training day: trained on the others, measured on it"),
  calibration: CalibrationSchema.nullable().describe(
    "how the rank score becomes the must-read likelihood, with its reliability on days left out",
  ),
  promotion: PromotionSchema.nullable().describe("the model this one replaced, and how they compared"),
  nested: NestedEvaluationSchema.nullable().describe(
    "each training day measured nested (model, settings, calibration and selection rule chosen without it), and the selection rules compared",
  ),
  limits: z.array(z.string()),
});
export type RankerCard = z.infer<typeof RankerCardSchema>;

/** What the card says of the word vectors a model carries: the corpus, its revision and size, what was left out. */
function vectorsNote(model: RelevanceModel): string {
  const embedding = model.embedding;
  if (!embedding) return "";
  const { corpus, settings } = embedding;
  const leftOut = corpus.left_out_days.length;
  return (
    `, and each paper's word vector (the idf-weighted mean of ${embedding.words.length} words' ${settings.dims}-dimension vectors, ` +
    `learned offline from ${corpus.papers} papers in ${corpus.files} listings of ${corpus.name}` +
    `${corpus.commit ? ` at ${corpus.commit}` : ""}, ${leftOut} labelled day${leftOut === 1 ? "" : "s"} left out; ` +
    `read by ${embedding.heads.join(", ")} at scale ${embedding.weight})`
  );
}

/** The card of the model curate ranked with, or of the rules when it ranked without one. */
export function rankerCard(model: RelevanceModel | undefined): RankerCard {
  if (!model) {
    return {
      ranker: "rules",
      model_version: null,
      rank_score: null,
      features: null,
      trained_on: [],
      cross_validation: [],
      calibration: null,
      promotion: null,
      nested: null,
      limits: ["Candidates are ordered by the rubric's total, then REG FIT: nothing is learned from labels."],
    };
  }
  const { ngrams, title_terms: titleTerms, min_df: minDf } = model.features;
  return {
    ranker: "model",
    model_version: model.version,
    rank_score: model.rank_score,
    features:
      `tf-idf of word ${ngrams === 1 ? "unigrams" : `1..${ngrams}-grams`} over title and abstract` +
      `${titleTerms ? ", title terms apart" : ""} and arXiv categories; ${model.vocabulary.length} terms ` +
      `(in at least ${minDf} training papers)${vectorsNote(model)}; three class-balanced L2 logistic regressions (on topic, must-read, REG FIT 3)`,
    trained_on: model.training.days,
    cross_validation: model.cross_validation,
    calibration: model.calibration,
    promotion: model.promotion ?? null,
    nested: model.nested ?? null,
    limits: [...RANKER_LIMITS],
  };
}

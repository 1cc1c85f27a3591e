// Fits the relevance model on labelled days. Hyperparameters are chosen by leave one day out: for each
// day, fit on the others and measure that day, so a figure never comes from a day the fit has seen.
// Pure and deterministic: the same days, in any order, give the same model to the byte.

import { calibrationOf } from "./calibration.ts";
import { aucOf, RECALL_DEPTH } from "./evaluation.ts";
import type { LabelsFile } from "./labels.ts";
import { fitLogistic, type LogisticFit, predictLogistic, type SparseRow } from "./logistic-regression.ts";
import {
  buildVocabulary,
  type FeatureSettings,
  type RankedText,
  rankedWords,
  termCounts,
  tfidfRow,
  type Vocabulary,
} from "./relevance-features.ts";
import {
  type HeldOutDay,
  RELEVANCE_FORMAT,
  type RelevanceModel,
  rankScoreOf,
  rankScoreRule,
  type TrainingDay,
} from "./relevance-model.ts";
import { type CompiledVectors, compileVectors, documentVector, type WordVectors } from "./word-embeddings.ts";
import { vectorsOfFile, type WordVectorsFile } from "./word-vectors-file.ts";

type Label = LabelsFile["labels"][string]["label"];

export interface LabelledPaper {
  paper: RankedText;
  label: Label;
  /** The expert's REG FIT (1..3) for on-topic papers; null for label 0. */
  reg_fit: number | null;
}

export interface LabelledDay {
  date: string;
  papers: readonly LabelledPaper[];
}

export interface TrainSettings {
  version: string;
  features: FeatureSettings;
  /** Values of c tried for each head, ascending. */
  grid: readonly number[];
  /** Weights of the regulated head in the rank score tried, ascending. */
  regulated_weights: readonly number[];
  /** At most this many terms are kept: those with the largest weights, refitted alone. */
  max_terms: number;
  /**
   * Word vectors learned offline (`file`, as `picks embed` wrote it, and `vectors` read from it): each
   * paper's vector, times `weight`, joins its terms as dense features of the heads named.
   */
  embedding?: { file: WordVectorsFile; vectors: WordVectors; weight: number; heads: readonly Head[] };
}

type RowSettings = Pick<TrainSettings, "features" | "embedding">;

/**
 * How `picks train --embeddings` uses word vectors: every head reads the paper's vector at half the scale
 * of its unit-length terms. Measured by leave one day out on the twelve released days (docs/curation.md):
 * of 4,000 words x 64 and 6,000 x 48 at scales 0.5, 1 and 2, 8,000 x 128 at 0.5 and 1, and the on-topic
 * head alone, this one did best, and by less than refits move.
 */
export const EMBEDDING_USE = { weight: 0.5, heads: ["on_topic", "top", "regulated"] } as const;

/** Training settings' word vectors from a file `picks embed` wrote, used as `EMBEDDING_USE` says. */
export function embeddingOf(
  file: WordVectorsFile,
  use: { weight: number; heads: readonly Head[] } = EMBEDDING_USE,
): NonNullable<TrainSettings["embedding"]> {
  const { weight, heads, ...learned } = { ...file, weight: use.weight, heads: use.heads };
  return { file: learned, vectors: vectorsOfFile(learned), weight, heads };
}

/**
 * Measured by leave one day out on the six released days, nested (each day's model chose its own
 * settings on the other five): single words did as well as words and word pairs at a third of the size
 * and time, title terms apart and a light stemmer changed nothing, and the grid 2..32 found must-reads
 * better than 0.5..8 (recall@10 0.63 against 0.59): these are choices made on the released days.
 */
export const DEFAULT_TRAIN_SETTINGS: Omit<TrainSettings, "version"> = {
  features: { ngrams: 1, title_terms: false, min_df: 2 },
  grid: [2, 8, 32],
  regulated_weights: [0, 1, 2, 4],
  max_terms: 12_000,
};

/**
 * Where a head's fit stops: the largest gradient component below 0.1. The objective sums c-weighted
 * losses over about 2,000 papers, so this is a relative precision near 1e-6; against 1e-3 it takes half
 * the iterations, and on the eight released days every held-out figure agrees to three decimals.
 */
const FIT_TOLERANCE = 0.1;

const HEADS = ["on_topic", "top", "regulated"] as const;
type Head = (typeof HEADS)[number];
const targetOf: Record<Head, (item: LabelledPaper) => 0 | 1> = {
  on_topic: (item) => (item.label >= 1 ? 1 : 0),
  top: (item) => (item.label === 2 ? 1 : 0),
  regulated: (item) => (item.reg_fit === 3 ? 1 : 0),
};

interface Design {
  vocabulary: Vocabulary;
  terms: string[];
  /** Columns of a row: the terms, then the paper vector's dimensions when there are word vectors. */
  width: number;
  /** Each paper's terms. */
  rows: SparseRow[];
  /** Each paper's terms and vector, for the heads that read the word vectors. */
  embedded: SparseRow[];
}

const readsVectors = (settings: RowSettings, head: Head) => settings.embedding?.heads.includes(head) ?? false;
const rowsFor = (design: Design, settings: RowSettings, head: Head) =>
  readsVectors(settings, head) ? design.embedded : design.rows;

// A paper's terms do not depend on the fold: each paper is read once however many folds it is in
// (for the same settings object; other settings read it again).
const countsCache = new WeakMap<RankedText, { features: FeatureSettings; counts: Map<string, number> }>();

function countsOf(paper: RankedText, features: FeatureSettings): Map<string, number> {
  const cached = countsCache.get(paper);
  if (cached?.features === features) return cached.counts;
  const counts = termCounts(paper, features);
  countsCache.set(paper, { features, counts });
  return counts;
}

const compiledCache = new WeakMap<WordVectors, CompiledVectors>();
const vectorCache = new WeakMap<RankedText, { vectors: WordVectors; vector: Float64Array }>();

/** A paper's vector from the word vectors of its title and abstract, read once per paper. */
export function paperVector(paper: RankedText, vectors: WordVectors): Float64Array {
  const cached = vectorCache.get(paper);
  if (cached?.vectors === vectors) return cached.vector;
  let compiled = compiledCache.get(vectors);
  if (!compiled) {
    compiled = compileVectors(vectors);
    compiledCache.set(vectors, compiled);
  }
  const vector = documentVector(compiled, [...rankedWords(paper.title), ...rankedWords(paper.summary)]);
  vectorCache.set(paper, { vectors, vector });
  return vector;
}

/** A paper's row: its tf-idf terms, then (with word vectors) its vector times the embedding's weight. */
function rowOf(paper: RankedText, settings: RowSettings, vocabulary: Vocabulary, dense: boolean): SparseRow {
  const row = tfidfRow(countsOf(paper, settings.features), vocabulary);
  const embedding = settings.embedding;
  if (!embedding || !dense) return row;
  const offset = vocabulary.idf.length;
  const vector = paperVector(paper, embedding.vectors);
  const indices = [...row.indices];
  const values = [...row.values];
  vector.forEach((value, d) => {
    indices.push(offset + d);
    values.push(value * embedding.weight);
  });
  return { indices, values };
}

function designOf(papers: readonly LabelledPaper[], settings: RowSettings, keep?: ReadonlySet<string>) {
  const counts = papers.map((item) => countsOf(item.paper, settings.features));
  const vocabulary = buildVocabulary(counts, settings.features.min_df, keep);
  const terms = [...vocabulary.column.keys()];
  const width = terms.length + (settings.embedding?.vectors.dims ?? 0);
  const rows = papers.map((item) => rowOf(item.paper, settings, vocabulary, false));
  const embedded = settings.embedding
    ? papers.map((item) => rowOf(item.paper, settings, vocabulary, true))
    : rows;
  return { vocabulary, terms, width, rows, embedded } satisfies Design;
}

/** Every c of the grid, each fit starting from the last (the path from strong to weak regularisation). */
function fitPath(
  design: Design,
  rows: readonly SparseRow[],
  labels: readonly (0 | 1)[],
  grid: readonly number[],
): LogisticFit[] {
  const fits: LogisticFit[] = [];
  for (const c of grid) {
    const start = fits.at(-1);
    fits.push(
      fitLogistic(rows, labels, design.width, {
        c,
        balanced: true,
        tolerance: FIT_TOLERANCE,
        ...(start ? { start } : {}),
      }),
    );
  }
  return fits;
}

/** How a day's ranking by `scores` agrees with its labels: recall@10 of label 2, and both AUCs. */
export function heldOutFigures(
  date: string,
  labels: readonly Label[],
  scores: readonly number[],
): HeldOutDay {
  const order = scores
    .map((_, index) => index)
    .sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
  const of = (wanted: (label: Label) => boolean) =>
    scores.filter((_, index) => wanted(labels[index] as Label));
  const top = of((label) => label === 2);
  const topInFirst = order.slice(0, RECALL_DEPTH).filter((index) => labels[index] === 2).length;
  // Average precision of label 2: the mean, over must-reads, of the share of must-reads ranked at or above it.
  let found = 0;
  let precisionSum = 0;
  order.forEach((index, position) => {
    if (labels[index] === 2) precisionSum += ++found / (position + 1);
  });
  return {
    date,
    papers: labels.length,
    top_labels: top.length,
    recall_top10: top.length === 0 ? null : topInFirst / top.length,
    average_precision: top.length === 0 ? null : precisionSum / top.length,
    auc: aucOf(
      top,
      of((label) => label === 0),
    ),
    auc_on_topic: aucOf(
      of((label) => label >= 1),
      of((label) => label === 0),
    ),
  };
}

/**
 * What the grid search maximises: the mean of the day's average precision of must-reads and its AUC
 * on-topic. Recall@10 was tried first; on days with two or three must-reads it moves in steps of a third
 * or a half, and choosing by it picked settings that did worse on the left-out day (0.54 against 0.59).
 */
function meritOf(day: HeldOutDay): number | null {
  const values = [day.average_precision, day.auc_on_topic].filter((value) => value !== null);
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

interface Choice {
  c: Record<Head, number>;
  regulated_weight: number;
  days: HeldOutDay[];
  /** Each day's heads and rank scores under the chosen settings, from the model that did not see it. */
  out_of_fold: OutOfFoldScores[];
}

/** One held-out day's scores, paper by paper in the day's order, from a model trained without it. */
export interface OutOfFoldScores {
  on_topic: number[];
  top: number[];
  regulated: number[];
  rank_score: number[];
}

/** Every combination of the grid's values, one per head, in grid order. */
function combinations(grid: readonly number[]): Array<Record<Head, number>> {
  return HEADS.reduce<Array<Partial<Record<Head, number>>>>(
    (partial, head) => partial.flatMap((chosen) => grid.map((c) => ({ ...chosen, [head]: c }))),
    [{}],
  ) as Array<Record<Head, number>>;
}

/**
 * Picks c for each head and the regulated head's weight by leave one day out, maximising the mean over
 * days of `meritOf`; ties keep the earlier (more regularised, lighter) choice.
 */
/**
 * One fold of the settings search: each head fitted on every day but `held`, at every c of the grid,
 * and the held day's papers scored. `[head][i][k]` is paper k's probability under the grid's i-th c.
 * Folds are independent, so they can run on several threads (pipeline/parallel-training.ts).
 */
export type FoldProbabilities = Record<Head, number[][]>;

export function foldProbabilities(
  days: readonly LabelledDay[],
  held: number,
  settings: Pick<TrainSettings, "features" | "grid" | "embedding">,
): FoldProbabilities {
  const heldDay = days[held] as LabelledDay;
  const training = days.filter((_, index) => index !== held).flatMap((day) => day.papers);
  const design = designOf(training, settings);
  const heldRows = (head: Head) =>
    heldDay.papers.map((item) =>
      rowOf(item.paper, settings, design.vocabulary, readsVectors(settings, head)),
    );
  const byHead = {} as FoldProbabilities;
  for (const head of HEADS) {
    const targets = training.map(targetOf[head]);
    // A fold whose training days hold one side only (no REG FIT 3, say) learns nothing for that head.
    const bothSides = targets.includes(1) && targets.includes(0);
    const fits = bothSides ? fitPath(design, rowsFor(design, settings, head), targets, settings.grid) : [];
    const rows = heldRows(head);
    byHead[head] = settings.grid.map((_, i) => {
      const fit = fits[i];
      return rows.map((row) => (fit ? predictLogistic(fit, row) : 0));
    });
  }
  return byHead;
}

/** The days in the order training reads them: by date, so the model never depends on the input's order. */
export const byDate = <Day extends { date: string }>(days: readonly Day[]): Day[] =>
  [...days].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));

function chooseByHeldOutDays(
  days: readonly LabelledDay[],
  settings: TrainSettings,
  folds: readonly FoldProbabilities[] = days.map((_, held) => foldProbabilities(days, held, settings)),
): Choice {
  let best: Choice | undefined;
  let bestMerit = Number.NEGATIVE_INFINITY;
  for (const regulatedWeight of settings.regulated_weights) {
    for (const c of combinations(settings.grid)) {
      const heldDays = days.map((day, d) => {
        const of = (head: Head) =>
          (folds[d] as FoldProbabilities)[head][settings.grid.indexOf(c[head])] as number[];
        const [on, top, regulated] = [of("on_topic"), of("top"), of("regulated")];
        const scores = on.map((p, k) =>
          rankScoreOf(
            { on_topic: p, top: top[k] as number, regulated: regulated[k] as number },
            regulatedWeight,
          ),
        );
        const labels = day.papers.map((item) => item.label);
        const outOfFold = { on_topic: on, top, regulated, rank_score: scores };
        return { outOfFold, figures: heldOutFigures(day.date, labels, scores) };
      });
      const merits = heldDays.map((day) => meritOf(day.figures)).filter((merit) => merit !== null);
      const merit = merits.reduce((sum, value) => sum + value, 0) / Math.max(1, merits.length);
      if (merit > bestMerit + 1e-12) {
        bestMerit = merit;
        best = {
          c,
          regulated_weight: regulatedWeight,
          days: heldDays.map((day) => day.figures),
          out_of_fold: heldDays.map((day) => day.outOfFold),
        };
      }
    }
  }
  return best as Choice;
}

function labelCounts(papers: readonly LabelledPaper[]): TrainingDay["label_counts"] {
  const count = (label: Label) => papers.filter((item) => item.label === label).length;
  return { top: count(2), on_topic: count(1), off_mission: count(0) };
}

/**
 * Every head fitted on every paper at its chosen c; with more terms than `max_terms`, the strongest are
 * kept and the heads fitted again on those alone, so the file is small and exact. A head whose papers
 * hold one side only (no REG FIT 3, say) is left unfitted.
 */
function fitHeads(
  papers: readonly LabelledPaper[],
  settings: Pick<TrainSettings, "features" | "max_terms" | "embedding">,
  c: Record<Head, number>,
): { design: Design; fits: Record<Head, LogisticFit | undefined> } {
  const fitAll = (design: Design) =>
    Object.fromEntries(
      HEADS.map((head) => {
        const targets = papers.map(targetOf[head]);
        const bothSides = targets.includes(1) && targets.includes(0);
        const options = { c: c[head], balanced: true, tolerance: FIT_TOLERANCE };
        return [
          head,
          bothSides
            ? fitLogistic(rowsFor(design, settings, head), targets, design.width, options)
            : undefined,
        ];
      }),
    ) as Record<Head, LogisticFit | undefined>;
  let design = designOf(papers, settings);
  let fits = fitAll(design);
  if (design.terms.length > settings.max_terms) {
    const strength = design.terms.map((term, j) => ({
      term,
      weight: Math.max(...HEADS.map((head) => Math.abs(fits[head]?.weights[j] ?? 0))),
    }));
    strength.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1));
    const keep = new Set(strength.slice(0, settings.max_terms).map((item) => item.term));
    design = designOf(papers, settings, keep);
    fits = fitAll(design);
  }
  return { design, fits };
}

const significant = (value: number) => Number(value.toPrecision(6));

/**
 * Fits the three heads on every day with the c that leave-one-day-out chose, keeps the `max_terms` terms
 * with the largest weights and fits again on those alone, so the file is small and exact.
 * @example trainRelevance(days, { version: "relevance-2026.11.1", ...DEFAULT_TRAIN_SETTINGS }).heads.top
 */
export function trainRelevance(input: readonly LabelledDay[], settings: TrainSettings): RelevanceModel {
  return trainRelevanceWithFolds(input, settings).model;
}

/** A trained model and, for each of its days (by date), the scores of the fold that left it out. */
export interface TrainedRelevance {
  model: RelevanceModel;
  held_out: Array<{ date: string } & OutOfFoldScores>;
}

/** `trainRelevance`, keeping each day's out-of-fold scores: the promotion gate measures by them. */
export function trainRelevanceWithFolds(
  input: readonly LabelledDay[],
  settings: TrainSettings,
  /** The settings search's folds, one per day in date order, when they were computed elsewhere. */
  folds?: readonly FoldProbabilities[],
): TrainedRelevance {
  if (input.length < 2) throw new Error("training needs at least two labelled days, to leave one out");
  const days = byDate(input);
  const all = days.flatMap((day) => day.papers);
  for (const head of HEADS) {
    const positives = all.filter((item) => targetOf[head](item) === 1).length;
    if (positives === 0 || positives === all.length) {
      throw new Error(
        `training needs papers on both sides of the ${head} head (${positives} of ${all.length})`,
      );
    }
  }
  const choice = chooseByHeldOutDays(days, settings, folds);
  const papers = days.flatMap((day) => day.papers);
  const { design, fits: fitted } = fitHeads(papers, settings, choice.c);
  // Training checked above that every head has papers on both sides, so every head was fitted.
  const fits = fitted as Record<Head, LogisticFit>;
  const calibration = calibrationOf(
    days.map((day, d) => ({
      scores: (choice.out_of_fold[d] as OutOfFoldScores).rank_score,
      targets: day.papers.map(targetOf.top),
    })),
  );
  const terms = design.terms.length;
  const embedding = settings.embedding;
  const headOf = (head: Head) => ({
    c: choice.c[head],
    intercept: significant(fits[head].intercept),
    weights: Array.from(fits[head].weights.subarray(0, terms), significant),
    ...(readsVectors(settings, head)
      ? { vector_weights: Array.from(fits[head].weights.subarray(terms), significant) }
      : {}),
  });
  const model: RelevanceModel = {
    format: RELEVANCE_FORMAT,
    version: settings.version,
    rank_score: rankScoreRule(choice.regulated_weight),
    features: settings.features,
    vocabulary: design.terms,
    idf: design.vocabulary.idf.map(significant),
    heads: { on_topic: headOf("on_topic"), top: headOf("top"), regulated: headOf("regulated") },
    regulated_weight: choice.regulated_weight,
    calibration,
    ...(embedding
      ? { embedding: { ...embedding.file, weight: embedding.weight, heads: [...embedding.heads] } }
      : {}),
    training: {
      days: days.map((day) => ({
        date: day.date,
        papers: day.papers.length,
        label_counts: labelCounts(day.papers),
      })),
      papers: papers.length,
      grid: [...settings.grid],
      regulated_weights: [...settings.regulated_weights],
    },
    cross_validation: choice.days.map((day) => ({
      ...day,
      recall_top10: day.recall_top10 === null ? null : significant(day.recall_top10),
      auc: day.auc === null ? null : significant(day.auc),
      auc_on_topic: day.auc_on_topic === null ? null : significant(day.auc_on_topic),
      average_precision: day.average_precision === null ? null : significant(day.average_precision),
    })),
  };
  return {
    model,
    held_out: days.map((day, d) => ({ date: day.date, ...(choice.out_of_fold[d] as OutOfFoldScores) })),
  };
}

/** What leave-one-day-out chose for a model: each head's c and the regulated head's weight. */
export interface ChosenSettings {
  c: Record<Head, number>;
  regulated_weight: number;
}

/** The settings a trained model chose, to fit again on other papers with `fitRelevanceWith`. */
export const chosenSettingsOf = (model: RelevanceModel): ChosenSettings => ({
  c: { on_topic: model.heads.on_topic.c, top: model.heads.top.c, regulated: model.heads.regulated.c },
  regulated_weight: model.regulated_weight,
});

/** A paper's three heads and its rank score, from a fit of `fitRelevanceWith`. */
export type ScoredHeads = Record<Head, number> & { rank_score: number };

/**
 * Fits the three heads on `days` with settings already chosen: no leave-one-day-out search, no
 * calibration, so a retrain costs three fits instead of the search's hundred (the labelling simulation
 * retrains hundreds of times). The same fit as `trainRelevance`'s final one: every paper of every day,
 * the terms pruned to `max_terms` as there. Returns a scorer of papers, unrounded.
 */
export function fitRelevanceWith(
  days: readonly LabelledDay[],
  settings: Pick<TrainSettings, "features" | "max_terms" | "embedding">,
  choice: ChosenSettings,
): (papers: readonly RankedText[]) => ScoredHeads[] {
  const { design, fits } = fitHeads(
    days.flatMap((day) => day.papers),
    settings,
    choice.c,
  );
  const { vocabulary } = design;
  return (scored) =>
    scored.map((paper) => {
      // A head whose papers held one side only (no REG FIT 3, say) learned nothing: 0, as in the search.
      const of = (head: Head) => {
        const fit = fits[head];
        return fit
          ? predictLogistic(fit, rowOf(paper, settings, vocabulary, readsVectors(settings, head)))
          : 0;
      };
      const heads = { on_topic: of("on_topic"), top: of("top"), regulated: of("regulated") };
      return { ...heads, rank_score: rankScoreOf(heads, choice.regulated_weight) };
    });
}

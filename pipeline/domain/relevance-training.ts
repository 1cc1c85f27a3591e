// Fits the relevance model on labelled days. Hyperparameters are chosen by leave one day out: for each
// day, fit on the others and measure that day, so a figure never comes from a day the fit has seen.
// Pure and deterministic: the same days, in any order, give the same model to the byte.

import { aucOf, RECALL_DEPTH } from "./evaluation.ts";
import type { LabelsFile } from "./labels.ts";
import { fitLogistic, type LogisticFit, predictLogistic, type SparseRow } from "./logistic-regression.ts";
import {
  buildVocabulary,
  type FeatureSettings,
  type RankedText,
  termCounts,
  tfidfRow,
  type Vocabulary,
} from "./relevance-features.ts";
import {
  type HeldOutDay,
  RANK_SCORE_RULE,
  RELEVANCE_FORMAT,
  type RelevanceModel,
  type TrainingDay,
} from "./relevance-model.ts";

type Label = LabelsFile["labels"][string]["label"];

export interface LabelledPaper {
  paper: RankedText;
  label: Label;
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
  /** At most this many terms are kept: those with the largest weights, refitted alone. */
  max_terms: number;
}

export const DEFAULT_TRAIN_SETTINGS: Omit<TrainSettings, "version"> = {
  features: { ngrams: 1, title_terms: false, min_df: 2 },
  grid: [0.5, 2, 8],
  max_terms: 12_000,
};

const HEADS = ["on_topic", "top"] as const;
type Head = (typeof HEADS)[number];
const targetOf: Record<Head, (label: Label) => 0 | 1> = {
  on_topic: (label) => (label >= 1 ? 1 : 0),
  top: (label) => (label === 2 ? 1 : 0),
};

interface Design {
  vocabulary: Vocabulary;
  terms: string[];
  rows: SparseRow[];
}

// A paper's terms do not depend on the fold: each paper is read once however many folds it is in.
const countsCache = new WeakMap<RankedText, { key: string; counts: Map<string, number> }>();

function countsOf(paper: RankedText, features: FeatureSettings): Map<string, number> {
  const key = JSON.stringify(features);
  const cached = countsCache.get(paper);
  if (cached?.key === key) return cached.counts;
  const counts = termCounts(paper, features);
  countsCache.set(paper, { key, counts });
  return counts;
}

function designOf(papers: readonly LabelledPaper[], features: FeatureSettings, keep?: ReadonlySet<string>) {
  const counts = papers.map((item) => countsOf(item.paper, features));
  const vocabulary = buildVocabulary(counts, features.min_df, keep);
  const terms = [...vocabulary.column.keys()];
  return { vocabulary, terms, rows: counts.map((count) => tfidfRow(count, vocabulary)) } satisfies Design;
}

/** Every c of the grid, each fit starting from the last (the path from strong to weak regularisation). */
function fitPath(design: Design, labels: readonly (0 | 1)[], grid: readonly number[]): LogisticFit[] {
  const fits: LogisticFit[] = [];
  for (const c of grid) {
    const start = fits.at(-1);
    fits.push(
      fitLogistic(design.rows, labels, design.terms.length, {
        c,
        balanced: true,
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
  return {
    date,
    papers: labels.length,
    top_labels: top.length,
    recall_top10: top.length === 0 ? null : topInFirst / top.length,
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

/** The mean of a day's figures that have a value: the quantity the grid search maximises. */
function meritOf(day: HeldOutDay): number | null {
  const values = [day.recall_top10, day.auc, day.auc_on_topic].filter((value) => value !== null);
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

const rankScore = (onTopic: number, top: number) => (onTopic + top) / 2;

interface Choice {
  c: Record<Head, number>;
  days: HeldOutDay[];
}

/** Picks c for each head by leave one day out; ties keep the stronger regularisation (the earlier c). */
function chooseByHeldOutDays(days: readonly LabelledDay[], settings: TrainSettings): Choice {
  // probabilities[day][head][grid index][paper]
  const probabilities = days.map((held) => {
    const training = days.filter((day) => day !== held).flatMap((day) => day.papers);
    const design = designOf(training, settings.features);
    const heldRows = held.papers.map((item) =>
      tfidfRow(countsOf(item.paper, settings.features), design.vocabulary),
    );
    return Object.fromEntries(
      HEADS.map((head) => {
        const fits = fitPath(
          design,
          training.map((item) => targetOf[head](item.label)),
          settings.grid,
        );
        return [head, fits.map((fit) => heldRows.map((row) => predictLogistic(fit, row)))];
      }),
    ) as Record<Head, number[][]>;
  });
  let best: Choice | undefined;
  let bestMerit = Number.NEGATIVE_INFINITY;
  settings.grid.forEach((cOn, i) => {
    settings.grid.forEach((cTop, j) => {
      const heldDays = days.map((day, d) => {
        const on = (probabilities[d] as Record<Head, number[][]>).on_topic[i] as number[];
        const top = (probabilities[d] as Record<Head, number[][]>).top[j] as number[];
        const scores = on.map((p, k) => rankScore(p, top[k] as number));
        return heldOutFigures(
          day.date,
          day.papers.map((item) => item.label),
          scores,
        );
      });
      const merits = heldDays.map(meritOf).filter((merit) => merit !== null);
      const merit = merits.reduce((sum, value) => sum + value, 0) / Math.max(1, merits.length);
      if (merit > bestMerit + 1e-12) {
        bestMerit = merit;
        best = { c: { on_topic: cOn, top: cTop }, days: heldDays };
      }
    });
  });
  return best as Choice;
}

function labelCounts(papers: readonly LabelledPaper[]): TrainingDay["label_counts"] {
  const count = (label: Label) => papers.filter((item) => item.label === label).length;
  return { top: count(2), on_topic: count(1), off_mission: count(0) };
}

const significant = (value: number) => Number(value.toPrecision(6));

/**
 * Fits both heads on every day with the c that leave-one-day-out chose, keeps the `max_terms` terms
 * with the largest weights and fits again on those alone, so the file is small and exact.
 * @example trainRelevance(days, { version: "relevance-2026.11.1", ...DEFAULT_TRAIN_SETTINGS }).heads.top
 */
export function trainRelevance(input: readonly LabelledDay[], settings: TrainSettings): RelevanceModel {
  if (input.length < 2) throw new Error("training needs at least two labelled days, to leave one out");
  const days = [...input].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (const day of days) {
    for (const head of HEADS) {
      const positives = day.papers.filter((item) => targetOf[head](item.label) === 1).length;
      if (positives === day.papers.length)
        throw new Error(`${day.date}: every paper has the same ${head} label`);
    }
  }
  const choice = chooseByHeldOutDays(days, settings);
  const papers = days.flatMap((day) => day.papers);
  const fitAll = (design: Design) =>
    Object.fromEntries(
      HEADS.map((head) => [
        head,
        fitLogistic(
          design.rows,
          papers.map((item) => targetOf[head](item.label)),
          design.terms.length,
          {
            c: choice.c[head],
            balanced: true,
          },
        ),
      ]),
    ) as Record<Head, LogisticFit>;

  let design = designOf(papers, settings.features);
  let fits = fitAll(design);
  if (design.terms.length > settings.max_terms) {
    const strength = design.terms.map((term, j) => ({
      term,
      weight: Math.max(...HEADS.map((head) => Math.abs(fits[head].weights[j] as number))),
    }));
    strength.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1));
    const keep = new Set(strength.slice(0, settings.max_terms).map((item) => item.term));
    design = designOf(papers, settings.features, keep);
    fits = fitAll(design);
  }
  const headOf = (head: Head) => ({
    c: choice.c[head],
    intercept: significant(fits[head].intercept),
    weights: Array.from(fits[head].weights, significant),
  });
  return {
    format: RELEVANCE_FORMAT,
    version: settings.version,
    rank_score: RANK_SCORE_RULE,
    features: settings.features,
    vocabulary: design.terms,
    idf: design.vocabulary.idf.map(significant),
    heads: { on_topic: headOf("on_topic"), top: headOf("top") },
    training: {
      days: days.map((day) => ({
        date: day.date,
        papers: day.papers.length,
        label_counts: labelCounts(day.papers),
      })),
      papers: papers.length,
      grid: [...settings.grid],
    },
    cross_validation: choice.days.map((day) => ({
      ...day,
      recall_top10: day.recall_top10 === null ? null : significant(day.recall_top10),
      auc: day.auc === null ? null : significant(day.auc),
      auc_on_topic: day.auc_on_topic === null ? null : significant(day.auc_on_topic),
    })),
  };
}

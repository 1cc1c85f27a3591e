// A reader's own model: logistic regression on the relevance model's text features (its vocabulary and
// idf, so a paper reads the same to both), learned from the papers the reader keeps and likes against
// the screened background and the papers they dislike. Fitted when the profile changes and stored with
// it; ranking a day is then a sparse dot product per paper. Pure and deterministic: the same profile,
// background and vocabulary give the same model on every server.

import { z } from "zod";
import { fitLogistic, type SparseRow } from "./logistic-regression.ts";
import {
  type FeatureSettings,
  type RankedText,
  termCounts,
  tfidfRow,
  type Vocabulary,
} from "./relevance-features.ts";

/** A paper the model learns from, its row (see `rowOf`), and what names it in `why_for_you`. */
export interface ProfilePaper {
  key: string;
  arxiv_id: string | null;
  title: string;
  row: SparseRow;
}

export interface ReaderModelInput {
  profileVersion: number;
  relevanceVersion: string;
  /** The relevance vocabulary's size: the rows' columns are below it. */
  features: number;
  /** Library items with a known text, and liked papers. */
  liked: readonly ProfilePaper[];
  disliked: readonly ProfilePaper[];
  /**
   * Screened papers' rows, newest first: what the reader did not pick out. Those liked or disliked are
   * left out. The rows are the same for every reader, so the caller makes them once a day.
   */
  background: readonly { arxiv_id: string; row: SparseRow }[];
  /**
   * The model of the profile's previous version, when it read the same vocabulary: the fit starts from
   * its weights, and a profile changed by a few papers converges in a few iterations.
   */
  previous?: ReaderModel | null;
}

/**
 * Chosen on the twelve released labelled days by the readers' simulation (`picks eval
 * --simulate-readers`), so these figures are not unseen ones: c 4 against 0.25, 1 and 16 (precision@5
 * of governance and substrate readers 0.82 and 0.87 against 0.80 / 0.85 at c 1); 400 background papers
 * against 1,000 (0.83 / 0.88 at two and a half times the refit); a disliked paper counts three times.
 */
export const READER_MODEL_SETTINGS = {
  c: 4,
  background: 400,
  dislikeWeight: 3,
  /**
   * Where the fit stops: the largest gradient component below this. The objective sums c-weighted
   * losses over hundreds of papers, so 0.1 is a relative precision near 1e-5 (as the relevance model's
   * training argues); against 1e-3 it takes a fraction of the iterations.
   */
  tolerance: 0.1,
  /** Weights kept (largest first): the store holds a few kilobytes a reader, not the whole vocabulary. */
  maxTerms: 2_000,
  /** Papers kept to say which of them a ranked paper is nearest to, with their strongest terms. */
  anchors: 100,
  anchorTerms: 24,
};
export type ReaderModelSettings = typeof READER_MODEL_SETTINGS;

const AnchorSchema = z.object({
  key: z.string(),
  arxiv_id: z.string().nullable(),
  title: z.string(),
  columns: z.array(z.int().min(0)),
  values: z.array(z.number()),
});

export const ReaderModelSchema = z.object({
  profile_version: z.int().min(0),
  relevance_version: z.string(),
  positives: z.int().min(0),
  negatives: z.int().min(0),
  intercept: z.number(),
  columns: z.array(z.int().min(0)).describe("vocabulary columns with a weight, ascending"),
  weights: z.array(z.number()),
  anchors: z.array(AnchorSchema),
});
export type ReaderModel = z.infer<typeof ReaderModelSchema>;

const significant = (value: number) => Number(value.toPrecision(5));

/** The tf-idf row of a paper in the relevance model's vocabulary. */
export function rowOf(text: RankedText, features: FeatureSettings, vocabulary: Vocabulary): SparseRow {
  return tfidfRow(termCounts(text, features), vocabulary);
}

/**
 * Fits the reader's model, or null when there is nothing to learn from (no liked paper with a text):
 * the list is then the global one.
 * @example fitReaderModel({ liked: [paper], disliked: [], background, ... })?.weights.length // <= 2000
 */
export function fitReaderModel(
  input: ReaderModelInput,
  settings: ReaderModelSettings = READER_MODEL_SETTINGS,
): ReaderModel | null {
  if (input.liked.length === 0) return null;
  const likedIds = new Set(input.liked.flatMap((paper) => (paper.arxiv_id ? [paper.arxiv_id] : [])));
  const dislikedIds = new Set(input.disliked.flatMap((paper) => (paper.arxiv_id ? [paper.arxiv_id] : [])));
  const background = input.background
    .filter((paper) => !likedIds.has(paper.arxiv_id) && !dislikedIds.has(paper.arxiv_id))
    .slice(0, settings.background);
  const likedRows = input.liked.map((paper) => paper.row);
  const rows: SparseRow[] = [...likedRows];
  const labels: (0 | 1)[] = likedRows.map(() => 1);
  for (const paper of background) {
    rows.push(paper.row);
    labels.push(0);
  }
  // An integer weight as repeated rows: the fit stays the one tested logistic regression.
  for (const paper of input.disliked) {
    const row = paper.row;
    for (let k = 0; k < settings.dislikeWeight; k++) {
      rows.push(row);
      labels.push(0);
    }
  }
  if (!labels.includes(0)) return null;
  const size = input.features;
  const previous = input.previous?.relevance_version === input.relevanceVersion ? input.previous : null;
  const fit = fitLogistic(rows, labels, size, {
    c: settings.c,
    balanced: true,
    tolerance: settings.tolerance,
    ...(previous ? { start: { intercept: previous.intercept, weights: denseWeights(previous, size) } } : {}),
  });
  const strongest: number[] = [];
  for (let j = 0; j < size; j++) if ((fit.weights[j] as number) !== 0) strongest.push(j);
  strongest.sort((a, b) => Math.abs(fit.weights[b] as number) - Math.abs(fit.weights[a] as number) || a - b);
  const columns = strongest.slice(0, settings.maxTerms).sort((a, b) => a - b);
  // The newest liked papers are the ones `why_for_you` names.
  const firstAnchor = Math.max(0, input.liked.length - settings.anchors);
  return {
    profile_version: input.profileVersion,
    relevance_version: input.relevanceVersion,
    positives: input.liked.length,
    negatives: background.length + input.disliked.length,
    intercept: significant(fit.intercept),
    columns,
    weights: columns.map((j) => significant(fit.weights[j] as number)),
    anchors: input.liked.slice(firstAnchor).map((paper, i) => {
      const row = likedRows[firstAnchor + i] as SparseRow;
      const top = row.indices
        .map((column, k) => ({ column, value: row.values[k] as number }))
        .sort((a, b) => b.value - a.value || a.column - b.column)
        .slice(0, settings.anchorTerms)
        .sort((a, b) => a.column - b.column);
      return {
        key: paper.key,
        arxiv_id: paper.arxiv_id,
        title: paper.title,
        columns: top.map((term) => term.column),
        values: top.map((term) => significant(term.value)),
      };
    }),
  };
}

function denseWeights(model: ReaderModel, size: number): Float64Array {
  const weights = new Float64Array(size);
  model.columns.forEach((column, k) => {
    if (column < size) weights[column] = model.weights[k] as number;
  });
  return weights;
}

/** A stored model made ready to score: its weights as a dense array over the vocabulary. */
export interface CompiledReaderModel {
  model: ReaderModel;
  weights: Float64Array;
}

export function compileReaderModel(model: ReaderModel, vocabularySize: number): CompiledReaderModel {
  return { model, weights: denseWeights(model, vocabularySize) };
}

/** The model's logit for a paper's row: above zero, more like what the reader keeps than the background. */
export function readerLogit(compiled: CompiledReaderModel, row: SparseRow): number {
  let sum = compiled.model.intercept;
  for (let k = 0; k < row.indices.length; k++) {
    sum += (row.values[k] as number) * (compiled.weights[row.indices[k] as number] ?? 0);
  }
  return sum;
}

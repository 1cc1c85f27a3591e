// A day's screened papers in one reader's order. Three rules, in this order:
// 1. a paper by a followed author comes first, then one with a followed phrase (each with its reason);
// 2. the rest by the blend of the global on-topic head, the global must-read likelihood and the reader's
//    model, each z-scored over the day:
//    blend = z(on_topic) + MUST_READ_WEIGHT * z(logit(must_read)) + PERSONAL_WEIGHT * z(personal);
// 3. a must-read the global model is sure of (calibrated likelihood >= SURE_MUST_READ) is never below
//    position MUST_READ_DEPTH: it moves up to there, so a personal list never hides what everyone must read.
// A reader with nothing in their profile gets the global order itself, untouched.

import { z } from "zod";
import { logitOf } from "./calibration.ts";
import type { SparseRow } from "./logistic-regression.ts";
import type { CompiledReaderModel } from "./reader-model.ts";
import type { Follows } from "./reader-profile.ts";

/**
 * Chosen by the readers' simulation inside its folds, as READER_MODEL_SETTINGS: the values the twelve
 * folds chose most often (the personal weight 1 on 10 of 12, the must-read head 0 and the floor's 0.5
 * on all twelve).
 */
export const BLEND_SETTINGS = {
  personal: 1,
  mustRead: 0,
  /** The must-read floor: a paper at least this likely a must-read is never below `depth`. */
  sure: 0.5,
  depth: 10,
};
export type BlendSettings = typeof BLEND_SETTINGS;
export const PERSONAL_WEIGHT = BLEND_SETTINGS.personal;
export const SURE_MUST_READ = BLEND_SETTINGS.sure;
export const MUST_READ_DEPTH = BLEND_SETTINGS.depth;
export const NEAREST_SHOWN = 3;

/** What the ranking reads of a screened paper; the global order is the order they come in. */
export interface RankedCandidate {
  arxiv_id: string;
  title: string;
  summary: string;
  authors: string[];
  categories: string[];
  /** The relevance model's rank score, 0..1: the global order. */
  rank_score: number;
  /** The calibrated must-read likelihood, when the model gave one. */
  must_read: number | null;
  /** The on-topic head's probability: what the blend adds to the reader's model, when known. */
  on_topic: number | null;
}

export const WhyForYouSchema = z.object({
  nearest: z
    .array(
      z.object({
        key: z.string(),
        arxiv_id: z.string().nullable(),
        title: z.string(),
        similarity: z.number().describe("cosine of the two papers' strongest terms, 0..1"),
      }),
    )
    .describe("the library or liked papers this one is nearest to"),
  followed_author: z.string().nullable(),
  followed_phrase: z.string().nullable(),
  global_likelihood: z.number().nullable().describe("the global model's must-read likelihood"),
  personal: z.number().nullable().describe("the reader's model's probability; null without a model"),
  placed_by: z
    .enum(["followed_author", "followed_phrase", "blend", "must_read", "global"])
    .describe("which rule placed it: a follow, the blend, the must-read floor, or the global order"),
});
export type WhyForYou = z.infer<typeof WhyForYouSchema>;

export interface PersonalItem {
  /** The candidate's index in the day's (global) order. */
  index: number;
  for_you: number;
  why_for_you: WhyForYou;
}

const MARKS = /\p{M}+/gu;
const normal = (text: string) =>
  text.normalize("NFKD").replace(MARKS, "").toLowerCase().replace(/\s+/g, " ").trim();

function zScores(values: readonly number[]): number[] {
  const n = values.length;
  if (n === 0) return [];
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / n;
  const sd = Math.sqrt(variance);
  return values.map((value) => (sd > 0 ? (value - mean) / sd : 0));
}

/** A candidate's text and authors as follows are matched against: made once a day, not per reader. */
export interface MatchedText {
  text: string;
  authors: readonly string[];
}

/** The candidates' texts for `RankInput.texts`; normalising them was most of a list's time for a reader with follows. */
export function matchedTexts(candidates: readonly RankedCandidate[]): MatchedText[] {
  return candidates.map((candidate) => ({
    text: normal(`${candidate.title} ${candidate.summary}`),
    authors: candidate.authors.map(normal),
  }));
}

const round = (value: number) => Number(value.toFixed(4));
const sigmoid = (value: number) => 1 / (1 + Math.exp(-value));

/**
 * A day's candidates made ready for many readers: their rows turned into postings (for each term, the
 * candidates that have it), and the global heads z-scored. The same for every reader of the day, so a
 * caller ranking many readers makes it once; a reader's scores are then a walk over their model's terms.
 */
export interface DayIndex {
  candidates: readonly RankedCandidate[];
  rows: readonly SparseRow[];
  /** Postings by column: candidates[offsets[j]..offsets[j + 1]) have term j, with values alike. */
  offsets: Int32Array;
  postings: Int32Array;
  values: Float64Array;
  onTopic: number[];
  mustRead: number[];
  /** Zeros over the day's columns, lent to `why_for_you`'s lookups (and left zero). */
  scratch: Float64Array;
}

/** @example rankForReader({ candidates, day: indexDay(candidates, rows), model, follows }) */
export function indexDay(candidates: readonly RankedCandidate[], rows: readonly SparseRow[]): DayIndex {
  let columns = 0;
  let entries = 0;
  for (const row of rows) {
    entries += row.indices.length;
    for (const column of row.indices) columns = Math.max(columns, column + 1);
  }
  const offsets = new Int32Array(columns + 1);
  for (const row of rows)
    for (const column of row.indices) offsets[column + 1] = (offsets[column + 1] as number) + 1;
  for (let j = 0; j < columns; j++) offsets[j + 1] = (offsets[j + 1] as number) + (offsets[j] as number);
  const filled = offsets.slice(0, columns);
  const postings = new Int32Array(entries);
  const values = new Float64Array(entries);
  rows.forEach((row, i) => {
    row.indices.forEach((column, k) => {
      const at = filled[column] as number;
      postings[at] = i;
      values[at] = row.values[k] as number;
      filled[column] = at + 1;
    });
  });
  return {
    candidates,
    rows,
    offsets,
    postings,
    values,
    // The on-topic head, not the rank score: the rank score also counts must-read and regulated-fit
    // heads, which pulled the substrate reader's list towards governance papers (0.77 against 0.87).
    onTopic: zScores(candidates.map((candidate) => candidate.on_topic ?? candidate.rank_score)),
    mustRead: zScores(candidates.map((candidate) => logitOf(candidate.must_read ?? candidate.rank_score))),
    scratch: new Float64Array(columns),
  };
}

/** The model's logit for every candidate of the day, by the day's postings. */
function personalLogits(day: DayIndex, model: CompiledReaderModel): Float64Array {
  const logits = new Float64Array(day.candidates.length).fill(model.model.intercept);
  const last = day.offsets.length - 1;
  for (let k = 0; k < model.columns.length; k++) {
    const column = model.columns[k] as number;
    if (column >= last) break;
    const weight = model.weights[k] as number;
    for (let p = day.offsets[column] as number; p < (day.offsets[column + 1] as number); p++) {
      const at = day.postings[p] as number;
      logits[at] = (logits[at] as number) + weight * (day.values[p] as number);
    }
  }
  return logits;
}

export interface RankInput {
  candidates: readonly RankedCandidate[];
  /** Each candidate's row in the relevance vocabulary; needed only with a model (or give `day`). */
  rows?: readonly SparseRow[];
  /** The day's index (`indexDay`), when the caller ranks many readers on one day. */
  day?: DayIndex;
  model: CompiledReaderModel | null;
  follows: Follows;
  /** The candidates' `matchedTexts`, when the caller keeps them for the day; made here otherwise. */
  texts?: readonly MatchedText[];
  /** Papers whose `why_for_you.nearest` is worked out (the first this many of the list). */
  explain?: number;
  /** The personal model's weight in the blend (BLEND_SETTINGS.personal unless measuring another). */
  weight?: number;
  /** The blend and the floor, when measuring others than BLEND_SETTINGS. */
  blend?: BlendSettings;
}

/**
 * The reader's list: every candidate once, in their order.
 * @example rankForReader({ candidates, model: null, follows: { authors: [], phrases: [] } }) // global order
 */
export function rankForReader(input: RankInput): PersonalItem[] {
  const { candidates, model, follows } = input;
  const settings = input.blend ?? BLEND_SETTINGS;
  const weight = input.weight ?? settings.personal;
  const authors = new Map(follows.authors.map((name) => [normal(name), name]));
  const phrases = follows.phrases.map((phrase) => ({ phrase, normal: normal(phrase) }));
  const day = model ? (input.day ?? (input.rows ? indexDay(candidates, input.rows) : null)) : null;
  const personal = model && day ? personalLogits(day, model) : null;
  const mine = personal ? zScores(Array.from(personal)) : null;
  const onTopic =
    day?.onTopic ?? zScores(candidates.map((candidate) => candidate.on_topic ?? candidate.rank_score));
  const scored = candidates.map((candidate, index) => {
    // Names are normalised only when someone is followed: it was most of a list's time otherwise.
    const matched = input.texts?.[index];
    const at =
      authors.size === 0
        ? -1
        : matched
          ? matched.authors.findIndex((name) => authors.has(name))
          : candidate.authors.findIndex((name) => authors.has(normal(name)));
    const author = at < 0 ? undefined : (candidate.authors[at] as string);
    const text =
      phrases.length === 0 ? "" : (matched?.text ?? normal(`${candidate.title} ${candidate.summary}`));
    const phrase = author === undefined ? phrases.find((entry) => text.includes(entry.normal)) : undefined;
    const blend =
      (onTopic[index] as number) +
      (day && mine
        ? settings.mustRead * (day.mustRead[index] as number) + weight * (mine[index] as number)
        : 0);
    const tier = author !== undefined ? 0 : phrase !== undefined ? 1 : 2;
    return {
      index,
      tier,
      blend,
      why: {
        nearest: [],
        followed_author: author === undefined ? null : (authors.get(normal(author)) as string),
        followed_phrase: phrase?.phrase ?? null,
        global_likelihood: candidate.must_read,
        personal: personal ? round(sigmoid(personal[index] as number)) : null,
        placed_by:
          tier === 0 ? "followed_author" : tier === 1 ? "followed_phrase" : mine ? "blend" : "global",
      } as WhyForYou,
    };
  });
  // Without a model the order is the day's own, exactly (not re-sorted by score, which ties could move).
  scored.sort((a, b) => a.tier - b.tier || (mine ? b.blend - a.blend : 0) || a.index - b.index);
  if (mine) {
    // The must-read floor: each sure must-read below the depth moves up to it, in its global order.
    const lifted = scored
      .slice(settings.depth)
      .filter((item) => (candidates[item.index]?.must_read ?? 0) >= settings.sure);
    if (lifted.length > 0) {
      const rest = scored.filter((item) => !lifted.includes(item));
      const at = Math.max(0, Math.min(rest.length, settings.depth - lifted.length));
      for (const item of lifted) item.why.placed_by = "must_read";
      scored.splice(0, scored.length, ...rest.slice(0, at), ...lifted, ...rest.slice(at));
    }
  }
  const explain = Math.min(input.explain ?? 0, scored.length);
  return scored.map((item, position) => ({
    index: item.index,
    for_you: round(sigmoid(item.blend)),
    why_for_you:
      model && day && position < explain
        ? { ...item.why, nearest: nearestOf(model, day, item.index) }
        : item.why,
  }));
}

/** The anchors (library and liked papers) with the largest cosine to `row` on their strongest terms. */
function nearestOf(model: CompiledReaderModel, day: DayIndex, index: number): WhyForYou["nearest"] {
  // The row spread into the day's scratch array (and cleared after): a lookup per anchor term without
  // a map made for each explained paper.
  const row = day.rows[index] as SparseRow;
  const dense = day.scratch;
  row.indices.forEach((column, k) => {
    dense[column] = row.values[k] as number;
  });
  const found = model.anchors().map(({ anchor, columns, values: weights, norm }) => {
    let dot = 0;
    for (let k = 0; k < columns.length; k++) {
      const column = columns[k] as number;
      if (column < dense.length) dot += (weights[k] as number) * (dense[column] as number);
    }
    return { anchor, similarity: norm > 0 ? dot / norm : 0 };
  });
  for (const column of row.indices) dense[column] = 0;
  return found
    .filter((entry) => entry.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity || (a.anchor.key < b.anchor.key ? -1 : 1))
    .slice(0, NEAREST_SHOWN)
    .map(({ anchor, similarity }) => ({
      key: anchor.key,
      arxiv_id: anchor.arxiv_id,
      title: anchor.title,
      similarity: round(similarity),
    }));
}

// A day's screened papers in one reader's order. Three rules, in this order:
// 1. a paper by a followed author comes first, then one with a followed phrase (each with its reason);
// 2. the rest by the blend of the global on-topic likelihood and the reader's model, each z-scored over
//    the day: blend = z(on_topic) + PERSONAL_WEIGHT * z(personal);
// 3. a must-read the global model is sure of (calibrated likelihood >= SURE_MUST_READ) is never below
//    position MUST_READ_DEPTH: it moves up to there, so a personal list never hides what everyone must read.
// A reader with nothing in their profile gets the global order itself, untouched.

import { z } from "zod";
import type { SparseRow } from "./logistic-regression.ts";
import { type CompiledReaderModel, readerLogit } from "./reader-model.ts";
import type { Follows } from "./reader-profile.ts";

/** Chosen with the readers' simulation on the released days (see READER_MODEL_SETTINGS). */
export const PERSONAL_WEIGHT = 2;
export const SURE_MUST_READ = 0.5;
export const MUST_READ_DEPTH = 10;
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

export interface RankInput {
  candidates: readonly RankedCandidate[];
  /** Each candidate's row in the relevance vocabulary; needed only with a model. */
  rows?: readonly SparseRow[];
  model: CompiledReaderModel | null;
  follows: Follows;
  /** The candidates' `matchedTexts`, when the caller keeps them for the day; made here otherwise. */
  texts?: readonly MatchedText[];
  /** Papers whose `why_for_you.nearest` is worked out (the first this many of the list). */
  explain?: number;
  /** The personal model's weight in the blend (PERSONAL_WEIGHT unless measuring another). */
  weight?: number;
}

/**
 * The reader's list: every candidate once, in their order.
 * @example rankForReader({ candidates, model: null, follows: { authors: [], phrases: [] } }) // global order
 */
export function rankForReader(input: RankInput): PersonalItem[] {
  const { candidates, model, follows } = input;
  const weight = input.weight ?? PERSONAL_WEIGHT;
  const authors = new Map(follows.authors.map((name) => [normal(name), name]));
  const phrases = follows.phrases.map((phrase) => ({ phrase, normal: normal(phrase) }));
  const personal = model && input.rows ? input.rows.map((row) => readerLogit(model, row)) : null;
  // The on-topic head, not the rank score: the rank score also counts must-read and regulated-fit
  // heads, which pulled the substrate reader's list towards governance papers (0.77 against 0.87).
  const global = zScores(candidates.map((candidate) => candidate.on_topic ?? candidate.rank_score));
  const mine = personal ? zScores(personal) : null;
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
    const blend = (global[index] as number) + (mine ? weight * (mine[index] as number) : 0);
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
      .slice(MUST_READ_DEPTH)
      .filter((item) => (candidates[item.index]?.must_read ?? 0) >= SURE_MUST_READ);
    if (lifted.length > 0) {
      const rest = scored.filter((item) => !lifted.includes(item));
      const at = Math.max(0, Math.min(rest.length, MUST_READ_DEPTH - lifted.length));
      for (const item of lifted) item.why.placed_by = "must_read";
      scored.splice(0, scored.length, ...rest.slice(0, at), ...lifted, ...rest.slice(at));
    }
  }
  const explain = Math.min(input.explain ?? 0, scored.length);
  return scored.map((item, position) => ({
    index: item.index,
    for_you: round(sigmoid(item.blend)),
    why_for_you:
      model && input.rows && position < explain
        ? { ...item.why, nearest: nearestOf(model, input.rows[item.index] as SparseRow) }
        : item.why,
  }));
}

/** The anchors (library and liked papers) with the largest cosine to `row` on their strongest terms. */
function nearestOf(model: CompiledReaderModel, row: SparseRow): WhyForYou["nearest"] {
  const values = new Map<number, number>();
  row.indices.forEach((column, k) => {
    values.set(column, row.values[k] as number);
  });
  const found = model.model.anchors.map((anchor) => {
    let dot = 0;
    let norm = 0;
    anchor.columns.forEach((column, k) => {
      const value = anchor.values[k] as number;
      norm += value * value;
      dot += value * (values.get(column) ?? 0);
    });
    return { anchor, similarity: norm > 0 ? dot / Math.sqrt(norm) : 0 };
  });
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

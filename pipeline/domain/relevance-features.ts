// The ranker's view of a paper: tf-idf of word n-grams over its title and abstract, plus its arXiv
// categories. The same function turns a training paper and a paper to rank into terms, so the two
// can never be read differently.

import type { Candidate } from "./candidate.ts";
import type { SparseRow } from "./logistic-regression.ts";

export interface FeatureSettings {
  /** Longest word n-gram (1 = single words, 2 = single words and pairs). */
  ngrams: number;
  /** Title words also count as `title:<n-gram>`: a title names the contribution, an abstract its context. */
  title_terms: boolean;
  /** A term must occur in this many training papers to enter the vocabulary. */
  min_df: number;
}

/** The text a paper's terms come from: the ranker looks at nothing else. */
export type RankedText = Pick<Candidate, "title" | "summary" | "categories">;

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
const NON_ASCII = /\P{ASCII}/u;
const MARKS = /\p{M}+/gu;
// Words that carry no topic; everything else is left for the weights to judge.
const STOP_WORDS = new Set(
  (
    "a an and are as at be by for from has have in is it its of on or that the their this to was were " +
    "we which with our these can not also than such into"
  ).split(" "),
);

/** A text's words as the ranker reads them: lower case, accents folded, stop words and bare numbers left out. */
export function rankedWords(text: string): string[] {
  const plain = NON_ASCII.test(text) ? text.normalize("NFKD").replace(MARKS, "") : text;
  const found: string[] = [];
  for (const [word] of plain.toLowerCase().matchAll(WORD)) {
    // Numbers alone (years, table values) do not say what a paper is about.
    if (!STOP_WORDS.has(word) && !/^\d+$/.test(word)) found.push(word.replace("’", "'"));
  }
  return found;
}

function ngramsOf(tokens: readonly string[], longest: number, prefix: string, into: Map<string, number>) {
  for (let size = 1; size <= longest; size++) {
    for (let start = 0; start + size <= tokens.length; start++) {
      const term = prefix + tokens.slice(start, start + size).join(" ");
      into.set(term, (into.get(term) ?? 0) + 1);
    }
  }
}

/**
 * Every term of a paper with its count: word n-grams of title and abstract, `title:` n-grams, and
 * `cat:<category>` for each category with `primary:<category>` for the first.
 * @example termCounts({ title: "Agent memory", summary: "", categories: ["cs.AI"] }, settings)
 *   // Map { "agent" => 1, "memory" => 1, "agent memory" => 1, "title:agent" => 1, ..., "cat:cs.ai" => 1 }
 */
export function termCounts(paper: RankedText, settings: FeatureSettings): Map<string, number> {
  const counts = new Map<string, number>();
  const titleWords = rankedWords(paper.title);
  ngramsOf(titleWords, settings.ngrams, "", counts);
  ngramsOf(rankedWords(paper.summary), settings.ngrams, "", counts);
  if (settings.title_terms) ngramsOf(titleWords, settings.ngrams, "title:", counts);
  paper.categories.forEach((category, index) => {
    const name = category.toLowerCase();
    counts.set(`cat:${name}`, 1);
    if (index === 0) counts.set(`primary:${name}`, 1);
  });
  return counts;
}

/** Smoothed inverse document frequency, as scikit-learn's `smooth_idf`: never zero, never infinite. */
export function idfOf(documents: number, documentFrequency: number): number {
  return Math.log((1 + documents) / (1 + documentFrequency)) + 1;
}

/** A vocabulary: each term's column and idf. */
export interface Vocabulary {
  column: ReadonlyMap<string, number>;
  idf: readonly number[];
}

/**
 * The tf-idf row of one paper in a vocabulary: sublinear term frequency (1 + ln count) times idf,
 * scaled to unit length; terms outside the vocabulary are left out.
 */
export function tfidfRow(counts: ReadonlyMap<string, number>, vocabulary: Vocabulary): SparseRow {
  const entries: Array<[number, number]> = [];
  for (const [term, count] of counts) {
    const column = vocabulary.column.get(term);
    if (column !== undefined)
      entries.push([column, (1 + Math.log(count)) * (vocabulary.idf[column] as number)]);
  }
  entries.sort((a, b) => a[0] - b[0]);
  let norm = 0;
  for (const [, value] of entries) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return { indices: entries.map(([column]) => column), values: entries.map(([, value]) => value / norm) };
}

/**
 * The vocabulary of a training set: terms in at least `min_df` papers (and, when `keep` is given, only
 * those), in code-unit order so that the columns never depend on the order papers came in.
 */
export function buildVocabulary(
  documents: ReadonlyArray<ReadonlyMap<string, number>>,
  minDf: number,
  keep?: ReadonlySet<string>,
): Vocabulary {
  const frequency = new Map<string, number>();
  for (const counts of documents) {
    for (const term of counts.keys()) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  const terms = [...frequency]
    .filter(([term, df]) => df >= minDf && (keep === undefined || keep.has(term)))
    .map(([term]) => term)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    column: new Map(terms.map((term, index) => [term, index])),
    idf: terms.map((term) => idfOf(documents.length, frequency.get(term) as number)),
  };
}

// `picks eval --simulate-readers`: simulated readers on the labelled days. Each day is held out in turn:
// the global model is fitted on the other days (with the settings the shipped model chose), each
// reader's profile is built from the other days' labels, and the held-out day's lists are measured
// against what that reader wants. Beside it, the arxiv-sanity-style anchor: a linear SVM on the day's
// tf-idf, trained on the same library, summed (z-scored) with the global on-topic head.

import { calibrate } from "./calibration.ts";
import { fitLinearSvm, svmDecision } from "./linear-svm.ts";
import type { SparseRow } from "./logistic-regression.ts";
import { type PersonalItem, type RankedCandidate, rankForReader } from "./personal-ranking.ts";
import {
  compileReaderModel,
  fitReaderModel,
  type ProfilePaper,
  READER_MODEL_SETTINGS,
  rowOf,
} from "./reader-model.ts";
import {
  buildVocabulary,
  type RankedText,
  termCounts,
  tfidfRow,
  type Vocabulary,
} from "./relevance-features.ts";
import type { RelevanceModel } from "./relevance-model.ts";
import {
  chosenSettingsOf,
  fitRelevanceWith,
  type LabelledDay,
  type ScoredHeads,
} from "./relevance-training.ts";

export const READERS = ["governance", "substrate", "regulated", "cold"] as const;
export type ReaderKind = (typeof READERS)[number];

export interface SimPaper {
  id: string;
  title: string;
  summary: string;
  categories: string[];
  authors: string[];
  label: 0 | 1 | 2;
  group: string;
  reg_fit: number | null;
}

export interface SimDay {
  date: string;
  papers: readonly SimPaper[];
}

export interface SimSettings {
  /** Library size of each simulated reader with a profile. */
  library: number;
  /** Days of ratings in the learning curve (0: no rating run). */
  rating_days: number;
  /** Papers the reader rates a day. */
  ratings_per_day: number;
  /** The held-out days measured; all when absent. */
  held_out?: readonly string[];
  /** The personal model's settings and the blend's weight, when other than the shipped ones (tuning). */
  model?: typeof READER_MODEL_SETTINGS;
  personal_weight?: number;
  /** Whether to run the arxiv-sanity-style anchor too (default true). */
  baseline?: boolean;
}

/** Each held-out day's global heads (from the other days), kept by the caller across runs. */
export type FoldCache = Map<string, ScoredHeads[]>;

export const FULL_SIMULATION: SimSettings = { library: 20, rating_days: 5, ratings_per_day: 5 };

const wants = (reader: ReaderKind, paper: SimPaper): boolean => {
  if (paper.label === 0) return false;
  if (reader === "regulated") return paper.reg_fit === 3;
  if (reader === "cold") return true;
  return paper.group === reader;
};
const mustRead = (reader: ReaderKind, paper: SimPaper) => paper.label === 2 && wants(reader, paper);

/** FNV-1a of the id: a fixed, even spread for picking a library without randomness. */
function spread(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** The reader's library: `size` papers they want from the given days, chosen by a fixed spread. */
export function simulatedLibrary(reader: ReaderKind, days: readonly SimDay[], size: number): SimPaper[] {
  if (reader === "cold") return [];
  return days
    .flatMap((day) => day.papers.filter((paper) => wants(reader, paper)))
    .sort((a, b) => spread(a.id) - spread(b.id) || (a.id < b.id ? -1 : 1))
    .slice(0, size);
}

const precisionAt = (ids: readonly SimPaper[], reader: ReaderKind, k: number) =>
  ids.slice(0, k).filter((paper) => wants(reader, paper)).length / k;

function recallAt(list: readonly SimPaper[], reader: ReaderKind, all: readonly SimPaper[], k: number) {
  const total = all.filter((paper) => mustRead(reader, paper)).length;
  if (total === 0) return null;
  return list.slice(0, k).filter((paper) => mustRead(reader, paper)).length / total;
}

export interface ReaderDay {
  date: string;
  reader: ReaderKind;
  precision5: { personal: number; global: number; baseline: number | null };
  recall10: { personal: number | null; global: number | null };
  /** The cold reader's list is the global order. */
  equals_global: boolean;
  /** Sure must-reads the floor moved into the first ten. */
  lifted: number;
}

export interface ReaderSummary {
  reader: ReaderKind;
  days: number;
  precision5: { personal: number; global: number; baseline: number | null };
  recall10: { personal: number | null; global: number | null };
  cold_equals_global_days: number;
  /** Mean precision@5 on the held-out days after 0..rating_days days of ratings. */
  learning_curve: number[];
}

export interface SimReport {
  settings: SimSettings;
  relevance_version: string;
  days: ReaderDay[];
  readers: ReaderSummary[];
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
const meanOrNull = (values: readonly (number | null)[]) => {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : mean(known);
};
const round = (value: number) => Number(value.toFixed(4));

const asLabelled = (day: SimDay): LabelledDay => ({
  date: day.date,
  papers: day.papers.map((paper) => ({ paper, label: paper.label, reg_fit: paper.reg_fit })),
});

function zScores(values: readonly number[]): number[] {
  const m = mean(values);
  const sd = Math.sqrt(mean(values.map((value) => (value - m) ** 2)));
  return values.map((value) => (sd > 0 ? (value - m) / sd : 0));
}

/** The arxiv-sanity anchor's order of a day: SVM on the day's own tf-idf plus the global on-topic head. */
export function baselineOrder(
  library: readonly RankedText[],
  day: readonly RankedText[],
  onTopic: readonly number[],
): number[] {
  // Title and abstract only, words and word pairs, the vocabulary of the day and the library.
  const features = { ngrams: 2, title_terms: false, min_df: 1 };
  const textOnly = (paper: RankedText) => termCounts({ ...paper, categories: [] }, features);
  const counts = [...library.map(textOnly), ...day.map(textOnly)];
  const vocabulary = buildVocabulary(counts, 1);
  const rows = counts.map((count) => tfidfRow(count, vocabulary));
  const labels = rows.map((_, i) => (i < library.length ? 1 : 0) as 0 | 1);
  const svm = fitLinearSvm(rows, labels, vocabulary.idf.length, { c: 0.1, balanced: true });
  const decision = zScores(rows.slice(library.length).map((row) => svmDecision(svm, row)));
  const global = zScores(onTopic);
  const score = decision.map((value, i) => value + (global[i] as number));
  return score.map((_, i) => i).sort((a, b) => (score[b] as number) - (score[a] as number) || a - b);
}

interface Fold {
  day: SimDay;
  candidates: RankedCandidate[];
  /** The day's papers in the global order (by the fold's rank score). */
  ordered: SimPaper[];
  onTopic: number[];
  rows: SparseRow[];
}

/**
 * Runs the simulation. `vocabulary` is the shipped model's: the personal model reads papers with it.
 * @example simulateReaders(days, shipped, compiled.vocabulary, FULL_SIMULATION).readers[0].precision5
 */
export function simulateReaders(
  days: readonly SimDay[],
  shipped: RelevanceModel,
  vocabulary: Vocabulary,
  settings: SimSettings,
  cache: FoldCache = new Map(),
): SimReport {
  const byDate = [...days].sort((a, b) => (a.date < b.date ? -1 : 1));
  const features = shipped.features;
  const choice = chosenSettingsOf(shipped);
  const rowsOf = new Map<SimPaper, SparseRow>();
  const row = (paper: SimPaper) => {
    let found = rowsOf.get(paper);
    if (!found) {
      found = rowOf(paper, features, vocabulary);
      rowsOf.set(paper, found);
    }
    return found;
  };
  const foldOf = (held: SimDay): Fold => {
    const others = byDate.filter((day) => day !== held);
    let heads = cache.get(held.date);
    if (!heads) {
      const scorer = fitRelevanceWith(others.map(asLabelled), { features, max_terms: 12_000 }, choice);
      heads = scorer(held.papers);
      cache.set(held.date, heads);
    }
    const scored = heads;
    const order = held.papers
      .map((_, i) => i)
      .sort((a, b) => (scored[b]?.rank_score as number) - (scored[a]?.rank_score as number) || a - b);
    const ordered = order.map((i) => held.papers[i] as SimPaper);
    const candidates = order.map((i) => {
      const paper = held.papers[i] as SimPaper;
      const score = scored[i]?.rank_score as number;
      return {
        arxiv_id: paper.id,
        title: paper.title,
        summary: paper.summary,
        authors: paper.authors,
        categories: paper.categories,
        rank_score: score,
        must_read: calibrate(shipped.calibration, score),
        on_topic: scored[i]?.on_topic as number,
      };
    });
    return {
      day: held,
      candidates,
      ordered,
      onTopic: order.map((i) => scored[i]?.on_topic as number),
      rows: ordered.map(row),
    };
  };

  const profilePaper = (paper: SimPaper): ProfilePaper => ({
    key: `arxiv:${paper.id}`,
    arxiv_id: paper.id,
    title: paper.title,
    row: row(paper),
  });
  const backgrounds = new Map<string, { arxiv_id: string; row: SparseRow }[]>();
  const listOf = (
    fold: Fold,
    liked: readonly SimPaper[],
    disliked: readonly SimPaper[],
    others: readonly SimDay[],
  ) => {
    // The newest papers first, as the server's background is its newest screened days.
    const key = others.map((day) => day.date).join();
    let background = backgrounds.get(key);
    if (!background) {
      background = [...others]
        .reverse()
        .flatMap((day) => day.papers)
        .slice(0, (settings.model ?? READER_MODEL_SETTINGS).background * 2)
        .map((paper) => ({ arxiv_id: paper.id, row: row(paper) }));
      backgrounds.set(key, background);
    }
    const model = fitReaderModel(
      {
        profileVersion: 1,
        relevanceVersion: shipped.version,
        features: vocabulary.idf.length,
        liked: liked.map(profilePaper),
        disliked: disliked.map(profilePaper),
        background,
      },
      settings.model,
    );
    const items = rankForReader({
      candidates: fold.candidates,
      rows: fold.rows,
      model: model && compileReaderModel(model, vocabulary.idf.length),
      follows: { authors: [], phrases: [] },
      ...(settings.personal_weight === undefined ? {} : { weight: settings.personal_weight }),
    });
    return items;
  };
  const papersOf = (fold: Fold, items: readonly PersonalItem[]) =>
    items.map((item) => fold.ordered[item.index] as SimPaper);

  const held = byDate.filter(
    (day) => settings.held_out === undefined || settings.held_out.includes(day.date),
  );
  const results: ReaderDay[] = [];
  const curves = new Map<ReaderKind, number[][]>();
  const folds = new Map<string, Fold>();
  const fold = (day: SimDay) => {
    let found = folds.get(day.date);
    if (!found) {
      found = foldOf(day);
      folds.set(day.date, found);
    }
    return found;
  };
  for (const day of held) {
    const current = fold(day);
    const others = byDate.filter((other) => other !== day);
    for (const reader of READERS) {
      const library = simulatedLibrary(reader, others, settings.library);
      const items = listOf(current, library, [], others);
      const list = papersOf(current, items);
      const baseline =
        library.length > 0 && settings.baseline !== false
          ? baselineOrder(library, current.ordered, current.onTopic).map(
              (i) => current.ordered[i] as SimPaper,
            )
          : null;
      results.push({
        date: day.date,
        reader,
        precision5: {
          personal: precisionAt(list, reader, 5),
          global: precisionAt(current.ordered, reader, 5),
          baseline: baseline && precisionAt(baseline, reader, 5),
        },
        recall10: {
          personal: recallAt(list, reader, day.papers, 10),
          global: recallAt(current.ordered, reader, day.papers, 10),
        },
        equals_global: items.every((item, position) => item.index === position),
        lifted: items.filter((item) => item.why_for_you.placed_by === "must_read").length,
      });
      if (reader === "cold" || settings.rating_days === 0) continue;
      // The rating run: on each of the nearest other days, the reader rates the first papers of their
      // list that they have not judged yet, by the true labels; the held-out day is measured after each.
      const ratingDays = [...others]
        .sort(
          (a, b) =>
            Math.abs(Date.parse(a.date) - Date.parse(day.date)) -
            Math.abs(Date.parse(b.date) - Date.parse(day.date)),
        )
        .slice(0, settings.rating_days);
      const liked = [...library];
      const disliked: SimPaper[] = [];
      const curve = [precisionAt(list, reader, 5)];
      for (const ratingDay of ratingDays) {
        const ratingFold = fold(ratingDay);
        const judged = new Set([...liked, ...disliked].map((paper) => paper.id));
        const theirs = papersOf(ratingFold, listOf(ratingFold, liked, disliked, others));
        for (const paper of theirs
          .filter((paper) => !judged.has(paper.id))
          .slice(0, settings.ratings_per_day)) {
          (wants(reader, paper) ? liked : disliked).push(paper);
        }
        curve.push(precisionAt(papersOf(current, listOf(current, liked, disliked, others)), reader, 5));
      }
      const rows = curves.get(reader) ?? [];
      rows.push(curve);
      curves.set(reader, rows);
    }
  }
  const readers = READERS.map((reader): ReaderSummary => {
    const mine = results.filter((result) => result.reader === reader);
    const curve = curves.get(reader) ?? [];
    return {
      reader,
      days: mine.length,
      precision5: {
        personal: round(mean(mine.map((result) => result.precision5.personal))),
        global: round(mean(mine.map((result) => result.precision5.global))),
        baseline: (() => {
          const value = meanOrNull(mine.map((result) => result.precision5.baseline));
          return value === null ? null : round(value);
        })(),
      },
      recall10: {
        personal: (() => {
          const v = meanOrNull(mine.map((r) => r.recall10.personal));
          return v === null ? null : round(v);
        })(),
        global: (() => {
          const v = meanOrNull(mine.map((r) => r.recall10.global));
          return v === null ? null : round(v);
        })(),
      },
      cold_equals_global_days: mine.filter((result) => result.equals_global).length,
      learning_curve:
        curve.length === 0
          ? []
          : (curve[0] as number[]).map((_, k) => round(mean(curve.map((row) => row[k] as number)))),
    };
  });
  return { settings, relevance_version: shipped.version, days: results, readers };
}

// `picks eval --simulate-readers`: simulated readers on the labelled days. Each day is held out in turn:
// the global model is fitted on the other days (with the settings the shipped model chose), each
// reader's profile is built from the other days' labels, and the held-out day's lists are measured
// against what that reader wants. Beside it, the arxiv-sanity-style anchor: a linear SVM on the day's
// tf-idf, trained on the same library, summed (z-scored) with the global on-topic head.
// The personal model's and the blend's settings are chosen inside the folds: for each held-out day, by
// holding each of the other days out in turn against the rest (its global heads fitted without the
// outer day either), so no figure is measured on a day that had a say in its settings.

import { calibrate } from "./calibration.ts";
import { fitLinearSvm, svmDecision } from "./linear-svm.ts";
import type { SparseRow } from "./logistic-regression.ts";
import {
  BLEND_SETTINGS,
  type BlendSettings,
  type DayIndex,
  indexDay,
  type RankedCandidate,
  rankForReader,
} from "./personal-ranking.ts";
import {
  type CompiledReaderModel,
  compileReaderModel,
  fitReaderModel,
  type ProfilePaper,
  READER_MODEL_SETTINGS,
  type ReaderBackground,
  type ReaderModelSettings,
  readerBackground,
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
  /**
   * The values tried for each setting. Each held-out day's settings are chosen on the other days alone
   * (nested): a figure is never measured on a day that chose it. Absent: the shipped settings, untuned.
   */
  grid?: TuningGrid;
  /** Whether to run the arxiv-sanity-style anchor too (default true). */
  baseline?: boolean;
}

/** The settings the simulation chooses among, each a list of values tried. */
export interface TuningGrid {
  shrinkage: readonly number[];
  background: readonly number[];
  personal: readonly number[];
  mustRead: readonly number[];
  sure: readonly number[];
  likedWeight: readonly number[];
  dislikeShare: readonly number[];
}

/** One point of the grid: the model's and the blend's settings. */
export interface Tuned {
  model: ReaderModelSettings;
  blend: BlendSettings;
}

export const SHIPPED: Tuned = { model: READER_MODEL_SETTINGS, blend: BLEND_SETTINGS };

/**
 * What `picks eval --simulate-readers` searches. The first stage (shrinkage, background, the blend's
 * weights and the floor) is chosen for precision@5 plus recall@10 of the governance and substrate
 * readers' libraries alone; the second (what a rating weighs) for precision@5 over the rating run.
 */
export const DEFAULT_GRID: TuningGrid = {
  shrinkage: [1e-4, 3e-4, 1e-3],
  background: [400, 800],
  personal: [1, 2, 3],
  mustRead: [0, 0.5],
  sure: [0.3, 0.5],
  likedWeight: [0.25, 1],
  dislikeShare: [0, 0.25, 0.5],
};

/**
 * Each held-out day's global heads (fitted without it, and without the outer day when it is an inner
 * fold), kept by the caller across runs; keyed by the day and the days left out.
 */
export type FoldCache = Map<string, ScoredHeads[]>;

export const FULL_SIMULATION: SimSettings = {
  library: 20,
  rating_days: 5,
  ratings_per_day: 5,
  grid: DEFAULT_GRID,
};

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
  /** Each held-out day's settings, chosen on the other days alone. */
  chosen: ({ date: string } & Tuned)[];
  /** The settings chosen on every day (what the service ships), when a grid was searched on all. */
  chosen_on_all: Tuned | null;
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
  index: DayIndex;
}

/** One reader's measures on one day. */
interface Measured {
  precision5: number;
  recall10: number | null;
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
  const size = vocabulary.idf.length;
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
  /** A day's fold: its global heads fitted on every day but it and `without`. */
  const folds = new Map<string, Fold>();
  const foldOf = (held: SimDay, without: readonly SimDay[]): Fold => {
    const left = [held, ...without].map((day) => day.date).sort();
    const key = `${held.date}|${left.join()}`;
    const kept = folds.get(key);
    if (kept) return kept;
    let heads = cache.get(key);
    if (!heads) {
      const others = byDate.filter((day) => !left.includes(day.date));
      const scorer = fitRelevanceWith(others.map(asLabelled), { features, max_terms: 12_000 }, choice);
      heads = scorer(held.papers);
      cache.set(key, heads);
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
    const fold = {
      day: held,
      candidates,
      ordered,
      onTopic: order.map((i) => scored[i]?.on_topic as number),
      index: indexDay(candidates, ordered.map(row)),
    };
    folds.set(key, fold);
    return fold;
  };

  const profilePaper = (paper: SimPaper): ProfilePaper => ({
    key: `arxiv:${paper.id}`,
    arxiv_id: paper.id,
    title: paper.title,
    row: row(paper),
  });
  // The newest papers first, as the server's background is its newest screened days.
  const backgrounds = new Map<string, ReaderBackground>();
  const backgroundOf = (learn: readonly SimDay[], papers: number) => {
    const key = `${papers}|${learn.map((day) => day.date).join()}`;
    let found = backgrounds.get(key);
    if (!found) {
      const newest = [...learn]
        .reverse()
        .flatMap((day) => day.papers)
        .map((paper) => ({ arxiv_id: paper.id, row: row(paper) }));
      found = readerBackground(newest, size, papers);
      backgrounds.set(key, found);
    }
    return found;
  };
  const modelOf = (
    tuned: Tuned,
    learn: readonly SimDay[],
    library: readonly SimPaper[],
    liked: readonly SimPaper[],
    disliked: readonly SimPaper[],
  ) => {
    const model = fitReaderModel(
      {
        profileVersion: 1,
        relevanceVersion: shipped.version,
        features: size,
        library: library.map(profilePaper),
        liked: liked.map(profilePaper),
        disliked: disliked.map(profilePaper),
        background: backgroundOf(learn, tuned.model.background),
      },
      tuned.model,
    );
    return model && compileReaderModel(model, size);
  };
  const listOf = (fold: Fold, model: CompiledReaderModel | null, blend: BlendSettings) => {
    const items = rankForReader({
      candidates: fold.candidates,
      day: fold.index,
      model,
      follows: { authors: [], phrases: [] },
      blend,
    });
    return { items, papers: items.map((item) => fold.ordered[item.index] as SimPaper) };
  };
  const measure = (fold: Fold, list: readonly SimPaper[], reader: ReaderKind): Measured => ({
    precision5: precisionAt(list, reader, 5),
    recall10: recallAt(list, reader, fold.day.papers, 10),
  });
  /**
   * The rating run: on each of the nearest `learn` days, the reader rates the first papers of their list
   * that they have not judged yet, by the true labels; the held-out day is measured after each.
   */
  const ratingRun = (
    tuned: Tuned,
    reader: ReaderKind,
    held: Fold,
    learn: readonly SimDay[],
    library: readonly SimPaper[],
    without: readonly SimDay[],
  ): number[] => {
    const ratingDays = [...learn]
      .sort(
        (a, b) =>
          Math.abs(Date.parse(a.date) - Date.parse(held.day.date)) -
            Math.abs(Date.parse(b.date) - Date.parse(held.day.date)) || (a.date < b.date ? -1 : 1),
      )
      .slice(0, settings.rating_days);
    const liked: SimPaper[] = [];
    const disliked: SimPaper[] = [];
    const curve: number[] = [];
    const measureNow = () =>
      curve.push(
        precisionAt(
          listOf(held, modelOf(tuned, learn, library, liked, disliked), tuned.blend).papers,
          reader,
          5,
        ),
      );
    measureNow();
    for (const ratingDay of ratingDays) {
      const fold = foldOf(ratingDay, without);
      const judged = new Set([...library, ...liked, ...disliked].map((paper) => paper.id));
      const theirs = listOf(fold, modelOf(tuned, learn, library, liked, disliked), tuned.blend).papers;
      for (const paper of theirs
        .filter((paper) => !judged.has(paper.id))
        .slice(0, settings.ratings_per_day)) {
        (wants(reader, paper) ? liked : disliked).push(paper);
      }
      measureNow();
    }
    return curve;
  };

  /**
   * The settings chosen on `learn` days alone: each of them held out in turn against the others (and
   * never `outer`, the day being measured), for the governance and substrate readers.
   */
  const tune = (learn: readonly SimDay[], outer: SimDay | null): Tuned => {
    const without = outer ? [outer] : [];
    const grid = settings.grid;
    if (!grid) return SHIPPED;
    const tuners = ["governance", "substrate"] as const;
    const inner = learn.map((day) => {
      const rest = learn.filter((other) => other !== day);
      return {
        fold: foldOf(day, without),
        rest,
        libraries: tuners.map((reader) => simulatedLibrary(reader, rest, settings.library)),
      };
    });
    // Stage one: the model's shrinkage and background, the blend's weights and the floor.
    let best: { score: number; tuned: Tuned } | null = null;
    for (const shrinkage of grid.shrinkage) {
      for (const background of grid.background) {
        const model = { ...READER_MODEL_SETTINGS, shrinkage, background };
        const models = inner.map(({ rest, libraries }) =>
          libraries.map((library) => modelOf({ model, blend: BLEND_SETTINGS }, rest, library, [], [])),
        );
        for (const personal of grid.personal) {
          for (const mustRead of grid.mustRead) {
            for (const sure of grid.sure) {
              const blend = { ...BLEND_SETTINGS, personal, mustRead, sure };
              const measured = inner.flatMap(({ fold }, i) =>
                tuners.map((reader, r) =>
                  measure(fold, listOf(fold, models[i]?.[r] ?? null, blend).papers, reader),
                ),
              );
              const score =
                mean(measured.map((m) => m.precision5)) + (meanOrNull(measured.map((m) => m.recall10)) ?? 0);
              if (!best || score > best.score + 1e-9) best = { score, tuned: { model, blend } };
            }
          }
        }
      }
    }
    const first = (best as { tuned: Tuned }).tuned;
    if (settings.rating_days === 0) return first;
    // Stage two: what a rating weighs, for precision@5 over the rating run.
    let bestRating: { score: number; tuned: Tuned } | null = null;
    for (const likedWeight of grid.likedWeight) {
      for (const dislikeShare of grid.dislikeShare) {
        const tuned = { model: { ...first.model, likedWeight, dislikeShare }, blend: first.blend };
        const curves = inner.flatMap(({ fold, rest, libraries }) =>
          tuners.map((reader, r) =>
            ratingRun(tuned, reader, fold, rest, libraries[r] as SimPaper[], without),
          ),
        );
        const score = mean(curves.map((curve) => mean(curve.slice(1))));
        if (!bestRating || score > bestRating.score + 1e-9) bestRating = { score, tuned };
      }
    }
    return (bestRating as { tuned: Tuned }).tuned;
  };

  const held = byDate.filter(
    (day) => settings.held_out === undefined || settings.held_out.includes(day.date),
  );
  const results: ReaderDay[] = [];
  const curves = new Map<ReaderKind, number[][]>();
  const chosen: SimReport["chosen"] = [];
  for (const day of held) {
    const others = byDate.filter((other) => other !== day);
    const tuned = tune(others, day);
    chosen.push({ date: day.date, ...tuned });
    const current = foldOf(day, []);
    for (const reader of READERS) {
      const library = simulatedLibrary(reader, others, settings.library);
      const { items, papers: list } = listOf(current, modelOf(tuned, others, library, [], []), tuned.blend);
      const baseline =
        library.length > 0 && settings.baseline !== false
          ? baselineOrder(library, current.ordered, current.onTopic).map(
              (i) => current.ordered[i] as SimPaper,
            )
          : null;
      const personal = measure(current, list, reader);
      const global = measure(current, current.ordered, reader);
      results.push({
        date: day.date,
        reader,
        precision5: {
          personal: personal.precision5,
          global: global.precision5,
          baseline: baseline && precisionAt(baseline, reader, 5),
        },
        recall10: { personal: personal.recall10, global: global.recall10 },
        equals_global: items.every((item, position) => item.index === position),
        lifted: items.filter((item) => item.why_for_you.placed_by === "must_read").length,
      });
      if (reader === "cold" || settings.rating_days === 0) continue;
      // Rating days' lists come from global heads fitted without the held-out day too.
      const curve = ratingRun(tuned, reader, current, others, library, [day]);
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
  const all = settings.grid && settings.held_out === undefined ? tune(byDate, null) : null;
  return { settings, chosen, chosen_on_all: all, relevance_version: shipped.version, days: results, readers };
}

const figure = (value: number | null) => (value === null ? "-" : value.toFixed(2));

/** The report as the CLI and the bench print it: a row per reader, then the settings each day chose. */
export function simulationLines(report: SimReport): string[] {
  const lines = [
    "reader      p@5 personal  global  anchor   recall@10 personal  global   cold=global   ratings curve (days 0..n)",
  ];
  for (const reader of report.readers) {
    lines.push(
      [
        reader.reader.padEnd(11),
        figure(reader.precision5.personal).padStart(12),
        figure(reader.precision5.global).padStart(7),
        figure(reader.precision5.baseline).padStart(7),
        figure(reader.recall10.personal).padStart(19),
        figure(reader.recall10.global).padStart(7),
        `${reader.cold_equals_global_days}/${reader.days}`.padStart(13),
        `   ${reader.learning_curve.map((value) => value.toFixed(2)).join(" ")}`,
      ].join(" "),
    );
  }
  const settingsOf = ({ model, blend }: Tuned) =>
    `shrinkage ${model.shrinkage}, background ${model.background}, personal ${blend.personal}, ` +
    `must-read ${blend.mustRead}, sure ${blend.sure}, liked ${model.likedWeight}, dislike share ${model.dislikeShare}`;
  if (report.settings.grid) {
    // How often each value was chosen: a setting chosen alike on most days is a stable one.
    const counts = new Map<string, number>();
    for (const tuned of report.chosen) {
      const key = settingsOf(tuned);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    lines.push("settings chosen inside the folds (days: settings):");
    for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
      lines.push(`  ${count}: ${key}`);
    }
  }
  if (report.chosen_on_all) lines.push(`settings chosen on every day: ${settingsOf(report.chosen_on_all)}`);
  return lines;
}

// Which papers of a day to ask the operator about first, and the simulation that measured the answer.
// Pure and deterministic: the random order comes from a seeded generator, the same input gives the same
// order and the same figures on any machine.
//
// Three orders (strategies):
// - `random`: a seeded shuffle, the baseline any other order must beat;
// - `best-ranked`: by rank score, the order `picks label` used before: the answers confirm what the model
//   already puts first;
// - `most-uncertain`: where the model is least sure a paper is a must-read, spread over the day's topics
//   (see `mostUncertain`).
//
// `simulateLabelling` measures them the way the operator would meet them: a base model trained on some
// labelled days orders a held-out day, the first k papers of that order are answered with the experts'
// labels, the model is fitted again with those k answers added, and days used by neither are scored.

import { termCounts } from "./relevance-features.ts";
import type { HeldOutDay } from "./relevance-model.ts";
import {
  type ChosenSettings,
  chosenSettingsOf,
  fitRelevanceWith,
  heldOutFigures,
  type LabelledDay,
  type ScoredHeads,
  type TrainSettings,
  trainRelevance,
} from "./relevance-training.ts";

export const LABELLING_STRATEGIES = ["random", "best-ranked", "most-uncertain"] as const;
export type LabellingStrategy = (typeof LABELLING_STRATEGIES)[number];

/**
 * The order `picks label` asks in after the day's picks. In the simulation it ties best-ranked within
 * noise, is ahead of it at k = 20 (the walk-through's length), and ahead of random at every k with a
 * base of 3 days (docs/curation.md, "Which papers to label first").
 */
export const SHIPPED_STRATEGY: LabellingStrategy = "most-uncertain";

/** What a strategy reads of a paper: its title (for near-duplicates), the model's heads and rank score. */
export interface LabellingCandidate {
  title: string;
  /** Read by no order today; kept so a paper's view is the heads the walk-through shows. */
  on_topic: number;
  top: number;
  rank_score: number;
}

// ---------------------------------------------------------------------------------------------------
// The orders

/** mulberry32: a small, fast generator whose sequence depends on the seed only. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a text: a seed from a day's date, so each day gets its own shuffle. */
export function seedOf(text: string, salt = 0): number {
  let hash = 0x811c9dc5 ^ salt;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const byRankScore = (items: readonly LabellingCandidate[]) => (a: number, b: number) =>
  (items[b] as LabellingCandidate).rank_score - (items[a] as LabellingCandidate).rank_score || a - b;

/** How far a head is from a coin toss, on the log-odds scale: 0 at p = 0.5, growing to either side. */
const sureness = (p: number) => {
  const clamped = Math.min(1 - 1e-12, Math.max(1e-12, p));
  return Math.abs(Math.log(clamped / (1 - clamped)));
};

/** A title's words, as the ranker reads them (stop words and bare numbers left out). */
function titleTerms(title: string): Set<string> {
  return new Set(termCounts({ title, summary: "", categories: [] }, TITLE_FEATURES).keys());
}
const TITLE_FEATURES = { ngrams: 1, title_terms: false, min_df: 1 };

/** Two titles share most of their terms: more than half of the words of the two, counted once (Jaccard). */
export function nearDuplicateTitles(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared) > 0.5;
}

/**
 * Where the model is least sure whether a paper is a must-read, spread over the day's topics.
 *
 * Why this head: what the ranker still gets wrong is telling a must-read from an on-topic paper (the
 * `top` head; recall@10 and average precision measure it). The head is a class-balanced logistic
 * regression, so p = 0.5 is where it draws its line: an answer there moves the line, an answer far from
 * it (a vision paper at 0.01, a must-read at 0.98) mostly confirms it. On a day these are mostly the
 * papers just below the picks, where must-reads and on-topic papers mix. The on-topic head was tried
 * too, taking turns with the top head: its unsure papers sit in the middle of the day, a quarter to a
 * third of the answers were off-mission papers, and the same number of answers taught less (average
 * precision lower at k = 20 with a base of 1, 2 or 3 days and at k = 40 with 1 or 3, equal with 2; AUC
 * on-topic moved by 0.001 either way). The regulated head only reweighs on-topic papers and has no
 * measure of its own, so it does not ask.
 *
 * Why spread: a day can carry several versions of one idea (a benchmark and its follow-up, a series of
 * "LLM agents for X" papers). The first answer about them teaches most of what the others would, so a
 * paper whose title shares most of its terms with one already asked about is put off to the end, after
 * every other (on the eight released days one pair of titles is that close: a guard, rarely used). Ties
 * in sureness go to the better-ranked paper.
 */
function mostUncertain(items: readonly LabellingCandidate[]): number[] {
  const order = items
    .map((_, index) => index)
    .sort(
      (a, b) =>
        sureness((items[a] as LabellingCandidate).top) - sureness((items[b] as LabellingCandidate).top) ||
        byRankScore(items)(a, b),
    );
  const terms = items.map((item) => titleTerms(item.title));
  const asked: number[] = [];
  const putOff: number[] = [];
  for (const index of order) {
    const duplicate = asked.some((other) =>
      nearDuplicateTitles(terms[index] as Set<string>, terms[other] as Set<string>),
    );
    (duplicate ? putOff : asked).push(index);
  }
  return [...asked, ...putOff];
}

/**
 * The indices of `items`, in the order a strategy asks about them (every item once).
 * @example labellingOrder("best-ranked", items) // [3, 0, 7, ...] by rank score
 */
export function labellingOrder(
  strategy: LabellingStrategy,
  items: readonly LabellingCandidate[],
  seed = 0,
): number[] {
  const indices = items.map((_, index) => index);
  switch (strategy) {
    case "best-ranked":
      return indices.sort(byRankScore(items));
    case "random": {
      const next = seededRandom(seed);
      for (let i = indices.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [indices[i], indices[j]] = [indices[j] as number, indices[i] as number];
      }
      return indices;
    }
    case "most-uncertain":
      return mostUncertain(items);
  }
}

export function isLabellingStrategy(value: string): value is LabellingStrategy {
  return (LABELLING_STRATEGIES as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------
// The simulation

export interface SimulationSettings {
  /** Settings of the base model's search (c per head, regulated weight); retrains reuse its choice. */
  train: TrainSettings;
  strategies: readonly LabellingStrategy[];
  /** How many answers of the held-out day, ascending; 0 (the base model) is always measured beside. */
  ks: readonly number[];
  /**
   * How many days the base model learns from; the days neither in the base nor held out are scored.
   * At most the days less two; default: that (the released days less the held-out day and one to score).
   */
  base_days?: number;
  /** Which days are held out in turn (their labels become the answers); default every day. */
  held_out?: readonly string[];
  /** Salt for the random order; each held-out day also seeds it with its date. */
  seed?: number;
  progress?: (message: string) => void;
}

/** The figures the simulation keeps of one scored day. */
export type ScoredDay = Pick<
  HeldOutDay,
  "date" | "recall_top10" | "average_precision" | "auc" | "auc_on_topic"
>;

export interface AnswerCounts {
  top: number;
  on_topic: number;
  off_mission: number;
}

/** One held-out day: its base, the base model's figures, and each strategy's figures after k answers. */
export interface SimulationRun {
  held_out: string;
  base: string[];
  scored: string[];
  /** What the base model's search chose; every retrain of this run fits with it. */
  settings: ChosenSettings;
  /** k = 0: the base model on each scored day. */
  base_figures: ScoredDay[];
  curves: Array<{
    strategy: LabellingStrategy;
    k: number;
    /** The papers answered, as indices into the held-out day's papers, in the order asked. */
    asked: number[];
    answers: AnswerCounts;
    figures: ScoredDay[];
  }>;
}

/** A mean over every (held-out day, scored day) pair; null where no pair had the figure. */
export interface CurvePoint {
  strategy: LabellingStrategy | "base";
  k: number;
  pairs: number;
  recall_top10: number | null;
  average_precision: number | null;
  auc: number | null;
  auc_on_topic: number | null;
  /** Mean answers per held-out day that were must-reads, on-topic and off-mission. */
  answers: AnswerCounts;
}

export interface SimulationResult {
  days: string[];
  base_days: number;
  ks: number[];
  strategies: LabellingStrategy[];
  runs: SimulationRun[];
  /** The learning curves: the base (k = 0) first, then each strategy at each k. */
  curves: CurvePoint[];
}

/** How many labelled days the simulation needs: a base to learn from, a day to answer, a day to score. */
export const SIMULATION_MIN_DAYS = 3;

const figuresOf = (day: LabelledDay, scored: readonly ScoredHeads[]): ScoredDay => {
  const figures = heldOutFigures(
    day.date,
    day.papers.map((item) => item.label),
    scored.map((item) => item.rank_score),
  );
  return {
    date: figures.date,
    recall_top10: figures.recall_top10,
    average_precision: figures.average_precision,
    auc: figures.auc,
    auc_on_topic: figures.auc_on_topic,
  };
};

/**
 * The settings of a base of one day, where leave one day out cannot choose: the middle of each grid.
 * With two base days or more, the search chooses as `picks train` does.
 */
function settingsFor(base: readonly LabelledDay[], train: TrainSettings): ChosenSettings {
  if (base.length >= 2) return chosenSettingsOf(trainRelevance(base, train));
  const middle = (values: readonly number[]) => values[Math.floor((values.length - 1) / 2)] as number;
  const c = middle(train.grid);
  return { c: { on_topic: c, top: c, regulated: c }, regulated_weight: middle(train.regulated_weights) };
}

function countAnswers(day: LabelledDay, chosen: readonly number[]): AnswerCounts {
  const labels = chosen.map((index) => day.papers[index]?.label);
  return {
    top: labels.filter((label) => label === 2).length,
    on_topic: labels.filter((label) => label === 1).length,
    off_mission: labels.filter((label) => label === 0).length,
  };
}

/**
 * For each held-out day H: the base is the `base_days` days after H (in date order, wrapping round),
 * the scored days are the rest. A base model is trained on the base (settings by leave one day out, as
 * `picks train`), H's papers are ordered by each strategy from that model's heads, the first k are
 * answered with their true labels, and the heads are fitted again on the base plus those k papers, with
 * the base's settings (no search: three fits a retrain). Every fit is scored on the scored days.
 */
export function simulateLabelling(
  input: readonly LabelledDay[],
  settings: SimulationSettings,
): SimulationResult {
  if (input.length < SIMULATION_MIN_DAYS) {
    throw new Error(
      `the labelling simulation needs at least ${SIMULATION_MIN_DAYS} labelled days (a base to train on, a day to answer, a day to score); got ${input.length}`,
    );
  }
  const days = [...input].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const n = days.length;
  const baseDays = settings.base_days ?? n - 2;
  if (!Number.isInteger(baseDays) || baseDays < 1 || baseDays > n - 2) {
    throw new Error(`the base must hold 1 to ${n - 2} of the ${n} days; got ${baseDays}`);
  }
  const ks = [...new Set(settings.ks)].sort((a, b) => a - b);
  const heldOut = settings.held_out ?? days.map((day) => day.date);
  const unknown = heldOut.filter((date) => !days.some((day) => day.date === date));
  if (unknown.length > 0) throw new Error(`not a labelled day: ${unknown.join(", ")}`);
  const runs: SimulationRun[] = [];
  for (const date of heldOut) {
    const h = days.findIndex((day) => day.date === date);
    const held = days[h] as LabelledDay;
    const base = Array.from({ length: baseDays }, (_, i) => days[(h + 1 + i) % n] as LabelledDay);
    const scored = days.filter((day) => day !== held && !base.includes(day));
    settings.progress?.(`held out ${held.date}: base ${base.map((day) => day.date).join(", ")}`);
    const chosen = settingsFor(base, settings.train);
    const scoreAll = (scorer: ReturnType<typeof fitRelevanceWith>) =>
      scored.map((day) => figuresOf(day, scorer(day.papers.map((item) => item.paper))));
    const baseFit = fitRelevanceWith(base, settings.train, chosen);
    const heads = baseFit(held.papers.map((item) => item.paper));
    const candidates = held.papers.map((item, index) => ({
      title: item.paper.title,
      on_topic: (heads[index] as ScoredHeads).on_topic,
      top: (heads[index] as ScoredHeads).top,
      rank_score: (heads[index] as ScoredHeads).rank_score,
    }));
    const run: SimulationRun = {
      held_out: held.date,
      base: base.map((day) => day.date),
      scored: scored.map((day) => day.date),
      settings: chosen,
      base_figures: scoreAll(baseFit),
      curves: [],
    };
    for (const strategy of settings.strategies) {
      const order = labellingOrder(strategy, candidates, seedOf(held.date, settings.seed ?? 0));
      for (const k of ks) {
        const answered = order.slice(0, Math.min(k, order.length));
        const partial: LabelledDay = {
          date: held.date,
          papers: answered.map((index) => held.papers[index] as LabelledDay["papers"][number]),
        };
        settings.progress?.(`  ${strategy}, k = ${k}`);
        const retrained = fitRelevanceWith([...base, partial], settings.train, chosen);
        run.curves.push({
          strategy,
          k,
          asked: answered,
          answers: countAnswers(held, answered),
          figures: scoreAll(retrained),
        });
      }
    }
    runs.push(run);
  }
  return {
    days: days.map((day) => day.date),
    base_days: baseDays,
    ks,
    strategies: [...settings.strategies],
    runs,
    curves: curvesOf(runs, settings.strategies, ks),
  };
}

const mean = (values: ReadonlyArray<number | null>): number | null => {
  const present = values.filter((value) => value !== null);
  return present.length === 0 ? null : present.reduce((sum, value) => sum + value, 0) / present.length;
};

function pointOf(
  strategy: CurvePoint["strategy"],
  k: number,
  figures: readonly ScoredDay[],
  answers: readonly AnswerCounts[],
): CurvePoint {
  const of = (key: keyof AnswerCounts) =>
    answers.length === 0 ? 0 : answers.reduce((sum, item) => sum + item[key], 0) / answers.length;
  return {
    strategy,
    k,
    pairs: figures.length,
    recall_top10: mean(figures.map((day) => day.recall_top10)),
    average_precision: mean(figures.map((day) => day.average_precision)),
    auc: mean(figures.map((day) => day.auc)),
    auc_on_topic: mean(figures.map((day) => day.auc_on_topic)),
    answers: { top: of("top"), on_topic: of("on_topic"), off_mission: of("off_mission") },
  };
}

function curvesOf(
  runs: readonly SimulationRun[],
  strategies: readonly LabellingStrategy[],
  ks: readonly number[],
): CurvePoint[] {
  const points = [
    pointOf(
      "base",
      0,
      runs.flatMap((run) => run.base_figures),
      [],
    ),
  ];
  for (const strategy of strategies) {
    for (const k of ks) {
      const at = runs.flatMap((run) =>
        run.curves.filter((curve) => curve.strategy === strategy && curve.k === k),
      );
      points.push(
        pointOf(
          strategy,
          k,
          at.flatMap((curve) => curve.figures),
          at.map((curve) => curve.answers),
        ),
      );
    }
  }
  return points;
}

/** One strategy against another at one k, pair by pair (the same held-out day, base and scored day). */
export interface HeadToHead {
  strategy: LabellingStrategy;
  against: LabellingStrategy | "base";
  k: number;
  pairs: number;
  /** Mean of the strategy's figure less the other's, and on how many pairs it was higher or lower. */
  average_precision: { difference: number | null; better: number; worse: number };
  recall_top10: { difference: number | null; better: number; worse: number };
}

/**
 * `strategy` against `against` at `k`, on the pairs both were scored on: the means of the curves move
 * by a few thousandths, so a reader needs to see whether that is one pair or most of them.
 */
export function headToHead(
  result: SimulationResult,
  strategy: LabellingStrategy,
  against: LabellingStrategy | "base",
  k: number,
): HeadToHead {
  const differences = { average_precision: [] as number[], recall_top10: [] as number[] };
  for (const run of result.runs) {
    const mine = run.curves.find((curve) => curve.strategy === strategy && curve.k === k)?.figures;
    const theirs =
      against === "base"
        ? run.base_figures
        : run.curves.find((curve) => curve.strategy === against && curve.k === k)?.figures;
    if (!mine || !theirs) continue;
    mine.forEach((day, index) => {
      const other = theirs[index];
      for (const key of ["average_precision", "recall_top10"] as const) {
        const [a, b] = [day[key], other?.[key] ?? null];
        if (a !== null && b !== null) differences[key].push(a - b);
      }
    });
  }
  const summary = (values: readonly number[]) => ({
    difference: mean(values),
    better: values.filter((value) => value > 1e-12).length,
    worse: values.filter((value) => value < -1e-12).length,
  });
  return {
    strategy,
    against,
    k,
    pairs: differences.average_precision.length,
    average_precision: summary(differences.average_precision),
    recall_top10: summary(differences.recall_top10),
  };
}

/** A head-to-head in one line: "most-uncertain against best-ranked, k = 20: AP +0.004 (...)". */
export function headToHeadLine(row: HeadToHead): string {
  const signed = (value: number | null) =>
    value === null ? "-" : `${value >= 0 ? "+" : ""}${value.toFixed(3)}`;
  const part = (name: string, figure: HeadToHead["recall_top10"]) =>
    `${name} ${signed(figure.difference)} (higher on ${figure.better}, lower on ${figure.worse} of ${row.pairs} pairs)`;
  return (
    `${row.strategy} against ${row.against}, k = ${row.k}: ${part("AP", row.average_precision)}, ` +
    part("recall@10", row.recall_top10)
  );
}

/** The learning curves as a table for people: one line per strategy and k, the base first. */
export function learningCurveLines(result: SimulationResult): string[] {
  const figure = (value: number | null, digits: number) => (value === null ? "-" : value.toFixed(digits));
  const lines = [
    `labelling simulation: ${result.runs.length} held-out days, each with a base of ${result.base_days} day(s), ` +
      `scored on the ${result.days.length - result.base_days - 1} day(s) used by neither ` +
      `(${result.curves[0]?.pairs ?? 0} pairs)`,
    "strategy        k   recall@10  AP     AUC on-topic  AUC 2v0  answers (2 / 1 / 0)",
  ];
  for (const point of result.curves) {
    lines.push(
      `${point.strategy.padEnd(15)} ${String(point.k).padStart(3)}   ${figure(point.recall_top10, 3).padEnd(9)}  ` +
        `${figure(point.average_precision, 3).padEnd(5)}  ${figure(point.auc_on_topic, 3).padEnd(12)}  ` +
        `${figure(point.auc, 3).padEnd(7)}  ` +
        (point.strategy === "base"
          ? "-"
          : `${point.answers.top.toFixed(1)} / ${point.answers.on_topic.toFixed(1)} / ${point.answers.off_mission.toFixed(1)}`),
    );
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------------
// The order `picks label` asks in

/** What the walk-through needs of a screened candidate (a run record's `Screened`). */
export interface QueueCandidate {
  title: string;
  kept: boolean;
  rank: number | null;
  rank_score?: number | undefined;
  relevance?: { on_topic: number; top: number } | undefined;
}

/** After the day's picks, how many more papers the walk-through asks about. */
export const ASKED_AFTER_PICKS = 20;

/**
 * The papers to judge, in order: the day's picks by rank (the operator checks what was published), then
 * the `more` candidates not picked whose answers would teach the model most (`SHIPPED_STRATEGY`). A day
 * ranked by the rules has no heads to be unsure with: its best-ranked candidates follow the picks, as the
 * run record lists them.
 */
export function labellingQueue<T extends QueueCandidate>(
  candidates: readonly T[],
  more = ASKED_AFTER_PICKS,
  strategy: LabellingStrategy = SHIPPED_STRATEGY,
): Array<{ candidate: T; why: string }> {
  const picks = candidates
    .filter((item) => item.kept && item.rank !== null)
    .sort((a, b) => (a.rank as number) - (b.rank as number));
  const rest = candidates.filter((item) => !item.kept);
  const scored = rest.every((item) => item.relevance !== undefined && item.rank_score !== undefined);
  const asked = (() => {
    if (!scored)
      return rest.slice(0, more).map((candidate) => ({ candidate, why: "best-ranked not picked" }));
    const items = rest.map((item) => ({
      title: item.title,
      on_topic: item.relevance?.on_topic as number,
      top: item.relevance?.top as number,
      rank_score: item.rank_score as number,
    }));
    const why =
      strategy === "most-uncertain"
        ? (item: LabellingCandidate) =>
            `model unsure: must-read ${item.top.toFixed(2)}, on topic ${item.on_topic.toFixed(2)}`
        : () => (strategy === "best-ranked" ? "best-ranked not picked" : "at random");
    return labellingOrder(strategy, items, seedOf(rest.map((item) => item.title).join("\n")))
      .slice(0, more)
      .map((index) => ({ candidate: rest[index] as T, why: why(items[index] as LabellingCandidate) }));
  })();
  return [...picks.map((candidate) => ({ candidate, why: `pick ${candidate.rank}` })), ...asked];
}

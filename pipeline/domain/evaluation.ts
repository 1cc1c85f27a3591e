// How well one day's ranking and picks agree with expert labels (2 must-read, 1 on topic, 0 off mission),
// and the same over several days. Pure: `picks eval` does the reading and scoring and hands the result here.

import type { PaperLabel } from "./labels.ts";
import type { RankReason } from "./relevance-model.ts";
import { AXIS_IDS, type AxisId, type Scores } from "./score.ts";
import type { Decision, ScoredCandidate } from "./selection.ts";

type Label = PaperLabel["label"];

export interface LabelledDayInput {
  /** Every screened candidate with its scores, in any order. */
  scored: readonly ScoredCandidate[];
  /** Selection's decision for every candidate in ranking order, as `selectPicks` returns them. */
  decisions: readonly Decision[];
  /** Labels by normalised arXiv id; ids missing from the day are reported and otherwise ignored. */
  labels: Readonly<Record<string, PaperLabel>>;
}

export interface EvaluatedPick {
  /** The pick's rank, 1..n. */
  rank: number;
  id: string;
  title: string;
  total: number;
  reg_fit: number;
  /** The relevance model's rank score; absent when the rules ranked. */
  rank_score?: number;
  /** null when the paper has no label. */
  label: Label | null;
}

export interface MistakeEvidence {
  axis: AxisId;
  signal: string;
  text: string;
}

/** A labelled paper the scorer placed badly, with everything that put it there. */
export interface Mistake {
  id: string;
  title: string;
  /** Position in the day's whole ranking, 1 = first (not the pick rank: most of these were not kept). */
  rank: number;
  total: number;
  groups: Scores["groups"];
  reg_fit: number;
  kept: boolean;
  /** Why selection kept it or not. */
  reason: string;
  evidence: MistakeEvidence[];
  /** With the relevance model: its rank score and the terms that raised it most. */
  rank_score?: number;
  why_ranked?: RankReason[];
}

export interface DayMetrics {
  screened: number;
  labelled: number;
  /** Candidates without a label: counted, left out of every metric. */
  unlabelled: number;
  /** Labelled ids the day's listing does not hold, sorted. */
  labels_not_in_listing: string[];
  /** Labelled candidates by label. */
  label_counts: { top: number; on_topic: number; off_mission: number };
  picks: EvaluatedPick[];
  /** Picks that have a label, and those of them labelled 1 or 2. */
  labelled_picks: number;
  on_topic_picks: number;
  /** on_topic_picks / labelled_picks; null when no pick has a label. */
  precision: number | null;
  /** Picks labelled 2. */
  top: number;
  /** min(3, label-2 papers of the day): what `top` can reasonably reach. */
  top_possible: number;
  /** Label-2 papers among the first 10 of the ranking / label-2 papers; null when there are none. */
  recall_top10: number | null;
  /** AUC of label 2 against label 0 by what ranked the day (rank score, else total); null when a side is empty. */
  auc: number | null;
  /** AUC of label >= 1 against label 0, by the same. */
  auc_on_topic: number | null;
  /** The highest-ranked label-0 papers, best ranked first. */
  false_positives: Mistake[];
  /** The lowest-ranked label-2 papers, worst ranked first. */
  misses: Mistake[];
}

export const MISTAKES_SHOWN = 5;
export const TOP_PICKS_EXPECTED = 3;
export const RECALL_DEPTH = 10;

/** The first index in ascending `sorted` whose value is not below `value` (or, `after`, above it). */
function bound(sorted: readonly number[], value: number, after: boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const item = sorted[middle] as number;
    if (item < value || (after && item === value)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The Mann-Whitney AUC: the chance that a random positive scores above a random negative, ties counting
 * one half. null when either side is empty.
 * @example aucOf([3, 2], [2, 1]) // (1 + 1 + 0.5 + 1) / 4 = 0.875
 */
export function aucOf(positives: readonly number[], negatives: readonly number[]): number | null {
  if (positives.length === 0 || negatives.length === 0) return null;
  const sorted = [...negatives].sort((a, b) => a - b);
  let wins = 0;
  for (const value of positives) {
    const below = bound(sorted, value, false);
    const ties = bound(sorted, value, true) - below;
    wins += below + ties / 2;
  }
  return wins / (positives.length * negatives.length);
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

function evidenceOf(scores: Scores): MistakeEvidence[] {
  return AXIS_IDS.flatMap((axis) =>
    scores.axes[axis].evidence.map((item) => ({ axis, signal: item.signal, text: item.text })),
  );
}

interface RankedEntry {
  position: number;
  decision: Decision;
  entry: ScoredCandidate;
  label: Label | null;
}

function mistake({ position, decision, entry }: RankedEntry): Mistake {
  const { scores, candidate, ranking } = entry;
  return {
    id: candidate.id,
    title: candidate.title,
    rank: position,
    total: scores.total,
    groups: scores.groups,
    reg_fit: scores.reg_fit.score,
    kept: decision.kept,
    reason: decision.reason,
    evidence: evidenceOf(scores),
    ...(ranking ? { rank_score: ranking.rank_score, why_ranked: ranking.why_ranked } : {}),
  };
}

/** What ordered the day: the relevance model's rank score when it ranked, else the rubric's total. */
const rankValue = (entry: ScoredCandidate): number => entry.ranking?.rank_score ?? entry.scores.total;

/**
 * One labelled day's metrics: precision and top picks of the kept candidates, recall of label 2 in the
 * first 10, AUC by total, and the worst-placed papers with their evidence.
 */
export function evaluateDay(input: LabelledDayInput): DayMetrics {
  const byId = new Map(input.scored.map((entry) => [entry.candidate.id, entry]));
  const labelOf = (id: string): Label | null =>
    Object.hasOwn(input.labels, id) ? (input.labels[id] as PaperLabel).label : null;
  const ranked: RankedEntry[] = input.decisions.map((decision, index) => {
    const entry = byId.get(decision.id);
    if (!entry) throw new Error(`decision for ${decision.id}, which was not scored`);
    return { position: index + 1, decision, entry, label: labelOf(decision.id) };
  });

  const labelled = ranked.filter((item) => item.label !== null);
  const withLabel = (label: Label) => labelled.filter((item) => item.label === label);
  const top = withLabel(2);
  const onTopic = labelled.filter((item) => (item.label as Label) >= 1);
  const offMission = withLabel(0);
  const totalsOf = (items: readonly RankedEntry[]) => items.map((item) => rankValue(item.entry));

  const picks: EvaluatedPick[] = ranked
    .filter((item) => item.decision.kept && item.decision.rank !== null)
    .sort((a, b) => (a.decision.rank as number) - (b.decision.rank as number))
    .map(({ decision, entry, label }) => ({
      rank: decision.rank as number,
      id: entry.candidate.id,
      title: entry.candidate.title,
      total: entry.scores.total,
      reg_fit: entry.scores.reg_fit.score,
      ...(entry.ranking ? { rank_score: entry.ranking.rank_score } : {}),
      label,
    }));
  const labelledPicks = picks.filter((pick) => pick.label !== null);
  const onTopicPicks = labelledPicks.filter((pick) => (pick.label as Label) >= 1).length;
  const topInFirst = top.filter((item) => item.position <= RECALL_DEPTH).length;
  const screenedIds = new Set(byId.keys());

  return {
    screened: ranked.length,
    labelled: labelled.length,
    unlabelled: ranked.length - labelled.length,
    labels_not_in_listing: Object.keys(input.labels)
      .filter((id) => !screenedIds.has(id))
      .sort(),
    label_counts: { top: top.length, on_topic: onTopic.length - top.length, off_mission: offMission.length },
    picks,
    labelled_picks: labelledPicks.length,
    on_topic_picks: onTopicPicks,
    precision: ratio(onTopicPicks, labelledPicks.length),
    top: picks.filter((pick) => pick.label === 2).length,
    top_possible: Math.min(TOP_PICKS_EXPECTED, top.length),
    recall_top10: ratio(topInFirst, top.length),
    auc: aucOf(totalsOf(top), totalsOf(offMission)),
    auc_on_topic: aucOf(totalsOf(onTopic), totalsOf(offMission)),
    false_positives: offMission.slice(0, MISTAKES_SHOWN).map(mistake),
    misses: top.slice(-MISTAKES_SHOWN).reverse().map(mistake),
  };
}

export interface OverallMetrics {
  days: number;
  screened: number;
  picks: number;
  labelled_picks: number;
  on_topic_picks: number;
  /** Pooled over the days: on-topic picks / labelled picks. */
  precision: number | null;
  top: number;
  top_possible: number;
  /** Means and minimums over the days that have a value. */
  auc_mean: number | null;
  auc_min: number | null;
  auc_on_topic_mean: number | null;
  auc_on_topic_min: number | null;
  recall_top10_mean: number | null;
}

function present(values: ReadonlyArray<number | null>): number[] {
  return values.filter((value): value is number => value !== null);
}

const meanOf = (values: readonly number[]) =>
  values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
const minOf = (values: readonly number[]) => (values.length === 0 ? null : Math.min(...values));

/** The days' metrics combined: counts summed, precision pooled, AUC and recall averaged. */
export function overallOf(days: readonly DayMetrics[]): OverallMetrics {
  const sum = (pick: (day: DayMetrics) => number) => days.reduce((total, day) => total + pick(day), 0);
  const aucs = present(days.map((day) => day.auc));
  const onTopicAucs = present(days.map((day) => day.auc_on_topic));
  const labelledPicks = sum((day) => day.labelled_picks);
  const onTopicPicks = sum((day) => day.on_topic_picks);
  return {
    days: days.length,
    screened: sum((day) => day.screened),
    picks: sum((day) => day.picks.length),
    labelled_picks: labelledPicks,
    on_topic_picks: onTopicPicks,
    precision: ratio(onTopicPicks, labelledPicks),
    top: sum((day) => day.top),
    top_possible: sum((day) => day.top_possible),
    auc_mean: meanOf(aucs),
    auc_min: minOf(aucs),
    auc_on_topic_mean: meanOf(onTopicAucs),
    auc_on_topic_min: minOf(onTopicAucs),
    recall_top10_mean: meanOf(present(days.map((day) => day.recall_top10))),
  };
}

/** Lowest acceptable values; every day must meet each bound given. */
export interface GateBounds {
  min_precision?: number;
  min_auc?: number;
  min_recall10?: number;
  min_auc_on_topic?: number;
}

type GatedMetric = "precision" | "auc" | "recall_top10" | "auc_on_topic";

export interface GateMiss {
  /** The day's name (its date, or its labels file when the names carry no date). */
  day: string;
  metric: GatedMetric;
  value: number;
  bound: number;
}

export interface GateResult {
  passed: boolean;
  bounds: GateBounds;
  misses: GateMiss[];
}

/**
 * Which days miss which bound. A day whose value is null (no labelled pick, no label-2 paper) has
 * nothing to measure and does not miss.
 * @example gateDays([{ day: "2026-03-11", precision: 0.5, auc: 0.9 }], { min_auc: 0.95 }).misses
 *   // [{ day: "2026-03-11", metric: "auc", value: 0.9, bound: 0.95 }]
 */
export function gateDays(
  days: ReadonlyArray<{ day: string } & Partial<Pick<DayMetrics, GatedMetric>>>,
  bounds: GateBounds,
): GateResult {
  const checks = [
    ["precision", bounds.min_precision],
    ["auc", bounds.min_auc],
    ["recall_top10", bounds.min_recall10],
    ["auc_on_topic", bounds.min_auc_on_topic],
  ] as const;
  const misses: GateMiss[] = [];
  for (const day of days) {
    for (const [metric, bound] of checks) {
      const value = day[metric];
      if (bound !== undefined && value !== undefined && value !== null && value < bound) {
        misses.push({ day: day.day, metric, value, bound });
      }
    }
  }
  return { passed: misses.length === 0, bounds, misses };
}

// The ways a day's picks can be chosen from the model's ranking, measured on labelled days the same way
// the ranking is: `picks eval --cross-validate --compare-selections` ranks each day by a model that never
// saw it, then lets every rule below choose that day's picks. The rule to ship is the one that keeps
// precision at 0.9 or more on every day and publishes the most must-reads.

import { evaluateDay } from "./evaluation.ts";
import type { PaperLabel } from "./labels.ts";
import { RANKED_SELECTION, type ScoredCandidate, type SelectionPolicy, selectPicks } from "./selection.ts";

export interface SelectionRule {
  name: string;
  policy: SelectionPolicy;
}

const MAX = RANKED_SELECTION.max_picks;
const NO_FLOOR = { min_total: 0, min_reg_fit: 1, max_picks: MAX };

/** The rules compared, the shipped one first (it wins ties). */
export const SELECTION_RULES: readonly SelectionRule[] = [
  { name: "rubric floor (total 6, REG FIT 2)", policy: RANKED_SELECTION },
  { name: "no floor", policy: NO_FLOOR },
  { name: "REG FIT 2 only", policy: { ...NO_FLOOR, min_reg_fit: 2 } },
  { name: "total 6 only", policy: { ...NO_FLOOR, min_total: 6 } },
  { name: "rubric floor, sparing the model's first 3", policy: { ...RANKED_SELECTION, floor_spares_top: 3 } },
  { name: "model's on-topic head >= 0.5", policy: { ...NO_FLOOR, min_on_topic: 0.5 } },
  { name: "must-read likelihood >= 0.1", policy: { ...NO_FLOOR, min_must_read: 0.1 } },
  { name: "must-read likelihood >= 0.2", policy: { ...NO_FLOOR, min_must_read: 0.2 } },
  {
    name: "rubric floor and must-read likelihood >= 0.1",
    policy: { ...RANKED_SELECTION, min_must_read: 0.1 },
  },
];

export const MIN_RULE_PRECISION = 0.9;

export interface ComparedDay {
  date: string;
  /** Model-ranked candidates with scores, as screened. */
  scored: readonly ScoredCandidate[];
  labels: Readonly<Record<string, PaperLabel>>;
}

export interface RuleDay {
  date: string;
  picks: number;
  /** On-topic picks among labelled picks; null when no pick has a label. */
  precision: number | null;
  /** Must-reads (label 2) among the picks. */
  top: number;
  /** Must-reads on the day. */
  must_reads: number;
  /** min(3, must-reads): what `top` is held to. */
  top_possible: number;
  /** top / must_reads; null when the day has none. */
  recall: number | null;
}

export interface RuleResult {
  name: string;
  policy: SelectionPolicy;
  days: RuleDay[];
  /** Must-reads published over all days. */
  top: number;
  min_precision: number | null;
  /** Days where top reaches top_possible. */
  days_top_met: number;
  /** Keeps precision >= MIN_RULE_PRECISION on every day. */
  precise: boolean;
}

export interface SelectionComparison {
  rules: RuleResult[];
  /** The precise rule publishing the most must-reads (earlier rules win ties); null if none is precise. */
  best: string | null;
}

/**
 * Every rule's picks on every day, measured against the labels.
 * @example compareSelections(days).best // "rubric floor (total 6, REG FIT 2)"
 */
export function compareSelections(
  days: readonly ComparedDay[],
  rules: readonly SelectionRule[] = SELECTION_RULES,
): SelectionComparison {
  const results = rules.map(({ name, policy }): RuleResult => {
    const ruleDays = days.map(({ date, scored, labels }): RuleDay => {
      const metrics = evaluateDay({ scored, decisions: selectPicks(scored, policy), labels });
      const mustReads = metrics.label_counts.top;
      return {
        date,
        picks: metrics.picks.length,
        precision: metrics.precision,
        top: metrics.top,
        must_reads: mustReads,
        top_possible: metrics.top_possible,
        recall: mustReads === 0 ? null : metrics.top / mustReads,
      };
    });
    const precisions = ruleDays.flatMap((day) => (day.precision === null ? [] : [day.precision]));
    const minPrecision = precisions.length === 0 ? null : Math.min(...precisions);
    return {
      name,
      policy,
      days: ruleDays,
      top: ruleDays.reduce((sum, day) => sum + day.top, 0),
      min_precision: minPrecision,
      days_top_met: ruleDays.filter((day) => day.top >= day.top_possible).length,
      precise: minPrecision === null || minPrecision >= MIN_RULE_PRECISION,
    };
  });
  let best: RuleResult | undefined;
  for (const result of results) {
    if (result.precise && (best === undefined || result.top > best.top)) best = result;
  }
  return { rules: results, best: best?.name ?? null };
}

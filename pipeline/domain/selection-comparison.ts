// The ways a day's picks can be chosen from the model's ranking, measured on labelled days the same way
// the ranking is: `picks eval --cross-validate --compare-selections` ranks each day by a model that never
// saw it, then lets every rule below choose that day's picks. The rule to ship is the one, among those
// that do not gate on REG FIT, that keeps precision at 0.9 or more on every day and publishes the most
// must-reads; `nestedSelection` measures that choice itself, each day picked by the rule its other days chose.

import { evaluateDay } from "./evaluation.ts";
import type { PaperLabel } from "./labels.ts";
import { RANKED_SELECTION, type ScoredCandidate, type SelectionPolicy, selectPicks } from "./selection.ts";

export interface SelectionRule {
  name: string;
  policy: SelectionPolicy;
}

const MAX = RANKED_SELECTION.max_picks;
const NO_FLOOR = { min_total: 0, min_reg_fit: 1, max_picks: MAX };
const RUBRIC_FLOOR = { min_total: 6, min_reg_fit: 2, max_picks: MAX };

/**
 * The rules compared, the shipped one first (it wins ties). Those that gate on REG FIT come last: the
 * rubric's rules were written with the first eight labelled days in view, so a REG FIT gate is measured
 * but not chosen (`SHIPPABLE_RULES`); the rubric's REG FIT stays a published score that explains a pick.
 */
export const SELECTION_RULES: readonly SelectionRule[] = [
  { name: "no floor (the six best-ranked)", policy: RANKED_SELECTION },
  { name: "must-read likelihood >= 0.05, at most 6", policy: { ...NO_FLOOR, min_must_read: 0.05 } },
  { name: "must-read likelihood >= 0.1, at most 6", policy: { ...NO_FLOOR, min_must_read: 0.1 } },
  { name: "must-read likelihood >= 0.2, at most 6", policy: { ...NO_FLOOR, min_must_read: 0.2 } },
  { name: "model's on-topic head >= 0.8", policy: { ...NO_FLOOR, min_on_topic: 0.8 } },
  { name: "model's on-topic head >= 0.9", policy: { ...NO_FLOOR, min_on_topic: 0.9 } },
  { name: "total 6 only", policy: { ...NO_FLOOR, min_total: 6 } },
  { name: "rubric floor (total 6, REG FIT 2)", policy: RUBRIC_FLOOR },
  { name: "REG FIT 2 only", policy: { ...NO_FLOOR, min_reg_fit: 2 } },
  { name: "rubric floor, sparing the model's first 3", policy: { ...RUBRIC_FLOOR, floor_spares_top: 3 } },
  {
    name: "rubric floor and must-read likelihood >= 0.1",
    policy: { ...RUBRIC_FLOOR, min_must_read: 0.1 },
  },
];

/** Whether a rule turns a paper away for the rubric's REG FIT (for all but a spared few). */
export const gatesOnRegFit = (policy: SelectionPolicy): boolean => policy.min_reg_fit > 1;

/** The name of the nested choice among `SHIPPABLE_RULES`: what the shipped selection is measured by. */
export const SHIPPABLE_CHOICE = "rules without a REG FIT gate";

/** The rules a day's picks may be chosen by: none gates on REG FIT. */
export const SHIPPABLE_RULES: readonly SelectionRule[] = SELECTION_RULES.filter(
  (rule) => !gatesOnRegFit(rule.policy),
);

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
  /** The rule chosen inside the folds, when the folds were given: how choosing a rule does on a day it never saw. */
  nested?: NestedSelection[];
}

/**
 * One fold of the nested comparison: the held-out day, ranked by a model that never saw it, and the
 * other days, each ranked by a model that saw neither it nor the held-out day (the inner folds of that
 * model's settings search). The rule is chosen on `others` and measured on `held`.
 */
export interface NestedFold {
  held: ComparedDay;
  others: readonly ComparedDay[];
}

export interface NestedDay extends RuleDay {
  /** The rule the fold chose on the other days. */
  rule: string;
}

export interface NestedSelection {
  /** Which rules the folds chose from. */
  name: string;
  rules: string[];
  days: NestedDay[];
  top: number;
  min_precision: number | null;
  days_top_met: number;
}

/**
 * Every rule's picks on every day, measured against the labels.
 * @example compareSelections(days, SHIPPABLE_RULES).best // "no floor (the six best-ranked)"
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

/**
 * The choice of rule measured as the ranking is, by day: each fold chooses among `rules` on its other
 * days (as `compareSelections` does; the first rule when none is precise) and the chosen rule picks the
 * held-out day.
 * @example nestedSelection("shipped", folds, SHIPPABLE_RULES).days[0].rule // "no floor (the six best-ranked)"
 */
export function nestedSelection(
  name: string,
  folds: readonly NestedFold[],
  rules: readonly SelectionRule[],
): NestedSelection {
  const days = folds.map(({ held, others }): NestedDay => {
    const chosen = compareSelections(others, rules).best ?? (rules[0] as SelectionRule).name;
    const rule = rules.find((item) => item.name === chosen) as SelectionRule;
    const measured = compareSelections([held], [rule]).rules[0]?.days[0] as RuleDay;
    return { ...measured, rule: chosen };
  });
  const precisions = days.flatMap((day) => (day.precision === null ? [] : [day.precision]));
  return {
    name,
    rules: rules.map((rule) => rule.name),
    days,
    top: days.reduce((sum, day) => sum + day.top, 0),
    min_precision: precisions.length === 0 ? null : Math.min(...precisions),
    days_top_met: days.filter((day) => day.top >= day.top_possible).length,
  };
}

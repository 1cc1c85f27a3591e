// What a model's training procedure and the shipped selection do on days they never saw, nested: each
// labelled day is ranked by a model trained without it (its settings and calibration chosen without it
// too), and its picks are made by the selection rule chosen on the other days. `picks eval
// --cross-validate --compare-selections --record MODEL` writes it into the model file, and the ranker
// card publishes it: the figures the README and docs/curation.md quote, never the in-sample ones.

import { z } from "zod";

// The shapes of selection-comparison.ts this reads, said here: the model file (relevance-model.ts) holds
// this schema, and selection-comparison.ts depends on the model through selection.ts.
interface ComparedRuleDay {
  date: string;
  picks: number;
  precision: number | null;
  top: number;
  top_possible: number;
}
interface ComparedRule {
  name: string;
  top: number;
  min_precision: number | null;
  days_top_met: number;
  days: readonly ComparedRuleDay[];
}
interface Comparison {
  rules: readonly ComparedRule[];
  nested?: ReadonlyArray<{ name: string; days: ReadonlyArray<ComparedRuleDay & { rule: string }> }>;
}

export const NestedDaySchema = z.object({
  date: z.string(),
  papers: z.int().min(0),
  top_labels: z.int().min(0).describe("label-2 papers (must-reads) of the day"),
  rule: z.string().describe("the selection rule chosen on the other days"),
  picks: z.int().min(0),
  precision: z.number().nullable().describe("on-topic picks / labelled picks"),
  top: z.int().min(0).describe("must-reads among the picks"),
  top_possible: z.int().min(0).describe("min(3, the day's must-reads): what `top` is held to"),
  recall_top10: z.number().nullable().describe("must-reads in the first ten / the day's must-reads"),
  auc: z.number().nullable().describe("AUC of label 2 against label 0"),
  auc_on_topic: z.number().nullable().describe("AUC of label >= 1 against label 0"),
});
export type NestedDay = z.infer<typeof NestedDaySchema>;

export const RuleSummarySchema = z.object({
  rule: z.string(),
  gates_on_reg_fit: z
    .boolean()
    .describe("turns papers away for the rubric's REG FIT: measured, never shipped"),
  top: z.int().min(0).describe("must-reads published over the days"),
  min_precision: z.number().nullable(),
  days_top_met: z.int().min(0),
  days: z.array(
    z.object({
      date: z.string(),
      picks: z.int().min(0),
      precision: z.number().nullable(),
      top: z.int().min(0),
    }),
  ),
});

export const NestedEvaluationSchema = z.object({
  how: z.string().describe("how the figures were made"),
  days: z.array(NestedDaySchema),
  selection: z
    .array(RuleSummarySchema)
    .describe("every rule compared, each choosing every day's picks from the same held-out ranking"),
});
export type NestedEvaluation = z.infer<typeof NestedEvaluationSchema>;

/** How the figures were made, in words, for a model that learned from `learned` of the `days` days. */
export const nestedHow = (days: number, learned: number): string =>
  `Leave one day out, nested, over ${days} labelled days: each day ranked by a model of this model's training ` +
  "procedure trained on the other days only (its settings and calibration chosen on them), and picked by the " +
  `selection rule that did best on them; no figure is in-sample. This model itself learned from ${learned} of ` +
  `these days${learned === days ? "" : `; the figures are its procedure's, trained on ${days - 1} days for each`}.`;

/** One held-out day's ranking figures, as `picks eval --cross-validate` measures them. */
export interface RankedDayFigures {
  date: string;
  papers: number;
  top_labels: number;
  recall_top10: number | null;
  auc: number | null;
  auc_on_topic: number | null;
}

const rounded = (value: number | null, digits = 4) => (value === null ? null : Number(value.toFixed(digits)));

/**
 * The nested figures of a cross-validated evaluation: each day's ranking figures with the picks of the
 * rule chosen inside the folds among `shippable` (the nested choice named so in the comparison).
 */
export function nestedEvaluationOf(
  ranked: readonly RankedDayFigures[],
  comparison: Comparison,
  shippable: string,
  /** The names of the rules that gate on REG FIT. */
  gated: ReadonlySet<string>,
  /** How many of the days the model itself learned from. */
  learned: number,
): NestedEvaluation {
  const nested = comparison.nested?.find((item) => item.name === shippable);
  if (!nested) throw new Error(`no nested choice of rule named ${shippable}`);
  return {
    how: nestedHow(ranked.length, learned),
    days: ranked.map((day) => {
      const picked = nested.days.find((item) => item.date === day.date);
      if (!picked) throw new Error(`the nested choice has no day ${day.date}`);
      return {
        date: day.date,
        papers: day.papers,
        top_labels: day.top_labels,
        rule: picked.rule,
        picks: picked.picks,
        precision: rounded(picked.precision),
        top: picked.top,
        top_possible: picked.top_possible,
        recall_top10: rounded(day.recall_top10),
        auc: rounded(day.auc),
        auc_on_topic: rounded(day.auc_on_topic),
      };
    }),
    selection: comparison.rules.map((rule) => ({
      rule: rule.name,
      gates_on_reg_fit: gated.has(rule.name),
      top: rule.top,
      min_precision: rounded(rule.min_precision),
      days_top_met: rule.days_top_met,
      days: rule.days.map((day) => ({
        date: day.date,
        picks: day.picks,
        precision: rounded(day.precision),
        top: day.top,
      })),
    })),
  };
}

// The relevance model and the shipped selection judged as the issue asks: `picks eval --cross-validate
// --compare-selections` on the eight released days, each day ranked by a model trained (settings and
// calibration chosen included) on the other seven only, never on itself; then every way of choosing the
// picks chooses from that same ranking. These are the figures the README, the model card and
// docs/curation.md report; the kept-back days are measured the same way by others.
import { describe, expect, it } from "vitest";
import { RANKED_SELECTION } from "../../pipeline/domain/selection.ts";
import { LABELLED_DAYS } from "../helpers/curation.ts";
import { runPicks } from "../helpers/processes.ts";

const result = await runPicks([
  "eval",
  "--cross-validate",
  "--compare-selections",
  "--labels",
  ...LABELLED_DAYS.map((day) => day.labels),
  "--listing",
  ...LABELLED_DAYS.map((day) => day.listing),
  "--min-precision",
  "0.9",
  "--min-auc",
  "0.97",
  "--json",
]);
const report = JSON.parse(result.stdout);
type Day = {
  date: string;
  precision: number;
  top: number;
  top_possible: number;
  recall_top10: number;
  auc: number;
  auc_on_topic: number;
};
type Rule = {
  name: string;
  policy: unknown;
  top: number;
  precise: boolean;
  days: Array<{ date: string; precision: number | null; top: number }>;
};
const days: Day[] = report.days;
const rules: Rule[] = report.selection_comparison.rules;

describe("picks eval --cross-validate on the eight released days", () => {
  it("evaluates every day by a model that never saw it, and passes the precision and AUC gates", () => {
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(report.ranker).toMatch(/leave one day out/);
    expect(days.map((day) => day.date)).toEqual(LABELLED_DAYS.map((day) => day.date));
  });

  it.each(LABELLED_DAYS.map((day) => day.date))("%s: precision >= 0.9 and AUC (2 vs 0) >= 0.97", (date) => {
    const day = days.find((item) => item.date === date) as Day;
    expect(day.precision).toBeGreaterThanOrEqual(0.9);
    expect(day.auc).toBeGreaterThanOrEqual(0.97);
  });

  // Top picks, recall@10 and AUC on-topic do not meet the targets on every day yet
  // (docs/curation.md has each day's figure). These bounds hold the measured level, so a change that
  // loses must-reads fails here.
  it("finds the must-reads at least as well as measured: top picks, recall@10, AUC on-topic", () => {
    const sum = (pick: (day: Day) => number) => days.reduce((total, day) => total + pick(day), 0);
    expect(sum((day) => Math.min(day.top, day.top_possible))).toBeGreaterThanOrEqual(22);
    expect(days.filter((day) => day.top >= day.top_possible).length).toBeGreaterThanOrEqual(7);
    expect(sum((day) => day.recall_top10) / days.length).toBeGreaterThanOrEqual(0.58);
    for (const day of days) {
      expect(day.top, day.date).toBeGreaterThanOrEqual(day.top_possible - 1);
      expect(day.recall_top10, day.date).toBeGreaterThanOrEqual(0.33);
      expect(day.auc_on_topic, day.date).toBeGreaterThanOrEqual(0.94);
    }
  });
});

describe("the shipped selection, chosen among the ways of choosing picks by the same measure", () => {
  const shipped = rules.find((rule) => JSON.stringify(rule.policy) === JSON.stringify(RANKED_SELECTION));

  it("is the rule that keeps precision >= 0.9 on every day and publishes the most must-reads", () => {
    expect(shipped, "the shipped policy is among the rules compared").toBeDefined();
    expect(report.selection_comparison.best).toBe(shipped?.name);
    expect(shipped?.precise).toBe(true);
    for (const rule of rules.filter((item) => item.precise)) {
      expect(rule.top, rule.name).toBeLessThanOrEqual(shipped?.top as number);
    }
  });

  it("compares the floor against no floor, a floor on the model's heads and a calibrated threshold", () => {
    const names = rules.map((rule) => rule.name).join("\n");
    expect(names).toMatch(/no floor/);
    expect(names).toMatch(/on-topic head/);
    expect(names).toMatch(/must-read likelihood/);
    for (const rule of rules) expect(rule.days.map((day) => day.date)).toEqual(days.map((day) => day.date));
  });

  it("keeps what the floor is measured to be worth: more must-reads than with no floor", () => {
    const noFloor = rules.find((rule) => rule.name === "no floor") as Rule;
    expect(shipped?.top).toBeGreaterThan(noFloor.top);
  });
});

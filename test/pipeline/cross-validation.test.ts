// The relevance model judged as the issue asks: `picks eval --cross-validate` on the six released days,
// each day ranked by a model trained on the other five only, never on itself. The kept-back days are
// measured the same way by others; these figures are the ones the README and the model card report.
import { describe, expect, it } from "vitest";
import { LABELLED_DAYS } from "../helpers/curation.ts";
import { runPicks } from "../helpers/processes.ts";

const result = await runPicks([
  "eval",
  "--cross-validate",
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
const days: Day[] = report.days;

describe("picks eval --cross-validate on the six released days", () => {
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

  // The targets for these three are not met on every day yet (the README's table has each day's
  // figure). These bounds hold the measured level, so a change that loses must-reads fails here.
  it("finds the must-reads at least as well as measured: top picks, recall@10, AUC on-topic", () => {
    const sum = (pick: (day: Day) => number) => days.reduce((total, day) => total + pick(day), 0);
    expect(sum((day) => Math.min(day.top, day.top_possible))).toBeGreaterThanOrEqual(16);
    expect(sum((day) => day.recall_top10) / days.length).toBeGreaterThanOrEqual(0.6);
    for (const day of days) {
      expect(day.top, day.date).toBeGreaterThanOrEqual(day.top_possible - 1);
      expect(day.recall_top10, day.date).toBeGreaterThanOrEqual(0.4);
      expect(day.auc_on_topic, day.date).toBeGreaterThanOrEqual(0.94);
    }
  });
});

// The shipped scorer against the expert labels of the three released announcement days. Nothing in
// the rubric is fitted by an optimiser (docs/curation.md), so each day is evaluated with the published
// rubric and the default selection: the same `picks curate` runs with.
import { describe, expect, it } from "vitest";
import { DEFAULT_SELECTION } from "../../pipeline/domain/selection.ts";
import { type EvalReport, evaluateLabelledDays } from "../../pipeline/evaluate.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { RELEASED_DAYS } from "../helpers/curation.ts";

const report: EvalReport = await evaluateLabelledDays({
  labels: RELEASED_DAYS.map((day) => day.labels),
  listings: RELEASED_DAYS.map((day) => day.listing),
  rubric: await loadRubric(),
  selection: DEFAULT_SELECTION,
  bounds: { min_precision: 0.9, min_auc: 0.95 },
});

describe("the shipped scorer on the released labelled days (issue 12's targets)", () => {
  it.each(
    report.days.map((day) => [day.date, day] as const),
  )("%s: precision >= 0.9, top picks >= min(3, top papers), AUC (2 vs 0) >= 0.95", (_date, day) => {
    expect(day.picks.length).toBeGreaterThan(0);
    expect(day.precision).toBeGreaterThanOrEqual(0.9);
    expect(day.top).toBeGreaterThanOrEqual(day.top_possible);
    expect(day.auc).toBeGreaterThanOrEqual(0.95);
  });

  it("passes the gate a rubric change must pass", () => {
    expect(report.days.map((day) => day.date)).toEqual(RELEASED_DAYS.map((day) => day.date));
    expect(report.gate).toEqual({ passed: true, misses: [], bounds: { min_precision: 0.9, min_auc: 0.95 } });
  });

  it("keeps fewer on a thin day than on a rich one: the bar is a bar, not a quota", () => {
    const [visionHeavy, , calibration] = report.days;
    expect(visionHeavy?.picks.length).toBeLessThan(calibration?.picks.length ?? 0);
  });
});

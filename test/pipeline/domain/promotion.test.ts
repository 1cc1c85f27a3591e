import { describe, expect, it } from "vitest";
import { type GateDay, gateVerdict, type SideFigures } from "../../../pipeline/domain/promotion.ts";

const side = (top: number, recall: number | null, auc: number | null): SideFigures => ({
  top,
  recall_top10: recall,
  auc_on_topic: auc,
  measured: "left out",
});
const day = (date: string, candidate: SideFigures, current: SideFigures): GateDay => ({
  date,
  candidate,
  current,
});

describe("gateVerdict", () => {
  it.each([
    ["equal on every figure", [day("d1", side(3, 0.5, 0.95), side(3, 0.5, 0.95))], true, []],
    [
      "better on one day, equal on the other",
      [day("d1", side(4, 0.6, 0.96), side(3, 0.5, 0.95)), day("d2", side(2, 0.5, 0.9), side(2, 0.5, 0.9))],
      true,
      [],
    ],
    [
      "one must-read fewer on one day, better elsewhere",
      [day("d1", side(2, 0.5, 0.95), side(3, 0.5, 0.95)), day("d2", side(5, 0.9, 0.99), side(2, 0.5, 0.9))],
      false,
      ["d1: top picks 2 < 3"],
    ],
    [
      "lower recall@10 on a day",
      [day("d1", side(3, 0.4, 0.95), side(3, 0.5, 0.95))],
      false,
      ["d1: recall@10 0.40 < 0.50"],
    ],
    [
      "mean AUC on-topic lower, within the tolerance",
      [day("d1", side(3, 0.5, 0.946), side(3, 0.5, 0.95))],
      true,
      [],
    ],
    [
      "mean AUC on-topic lower, past the tolerance",
      [day("d1", side(3, 0.5, 0.94), side(3, 0.5, 0.95))],
      false,
      ["mean AUC on-topic 0.940 < 0.950 - 0.005 tolerance"],
    ],
    [
      "a day without must-reads has no recall to lose",
      [day("d1", side(0, null, 0.95), side(0, null, 0.95))],
      true,
      [],
    ],
  ] as const)("%s", (_, days, promote, worse) => {
    const verdict = gateVerdict(days as readonly GateDay[]);
    expect(verdict.promote).toBe(promote);
    expect(verdict.worse).toEqual(worse);
  });

  it("reports both means", () => {
    const verdict = gateVerdict([
      day("d1", side(1, 1, 0.9), side(1, 1, 0.8)),
      day("d2", side(1, 1, 1), side(1, 1, null)),
    ]);
    expect(verdict.mean_auc_on_topic.candidate).toBeCloseTo(0.95, 10);
    expect(verdict.mean_auc_on_topic.current).toBeCloseTo(0.8, 10);
  });
});

import { describe, expect, it } from "vitest";
import { type GateDay, gateVerdict, type SideFigures } from "../../../pipeline/domain/promotion.ts";

/** A day's figures: must-reads picked, must-reads in the first ten (of `of`), AUC on-topic. */
const side = (top: number, top10: number, of: number, auc: number | null): SideFigures => ({
  top,
  top10,
  recall_top10: of === 0 ? null : top10 / of,
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
    ["equal on every figure", [day("d1", side(3, 5, 9, 0.95), side(3, 5, 9, 0.95))], []],
    [
      "one must-read fewer on a day, made up on another",
      [
        day("d1", side(2, 5, 9, 0.95), side(3, 5, 9, 0.95)),
        day("d2", side(4, 6, 9, 0.95), side(3, 5, 9, 0.95)),
      ],
      [],
    ],
    [
      "one must-read fewer on a day, not made up",
      [
        day("d1", side(2, 5, 9, 0.95), side(3, 5, 9, 0.95)),
        day("d2", side(3, 5, 9, 0.95), side(3, 5, 9, 0.95)),
      ],
      ["over the days: top picks 5 < 6"],
    ],
    [
      "two must-reads fewer on a day, even when made up elsewhere",
      [
        day("d1", side(1, 5, 9, 0.95), side(3, 5, 9, 0.95)),
        day("d2", side(6, 5, 9, 0.95), side(3, 5, 9, 0.95)),
      ],
      ["d1: top picks 1 < 3 - 1"],
    ],
    [
      "two fewer in a day's first ten",
      [
        day("d1", side(3, 3, 9, 0.95), side(3, 5, 9, 0.95)),
        day("d2", side(3, 7, 9, 0.95), side(3, 5, 9, 0.95)),
      ],
      ["d1: must-reads in the first ten 3 < 5 - 1"],
    ],
    [
      "mean AUC on-topic lower, within the tolerance",
      [day("d1", side(3, 5, 9, 0.946), side(3, 5, 9, 0.95))],
      [],
    ],
    [
      "mean AUC on-topic lower, past the tolerance",
      [day("d1", side(3, 5, 9, 0.94), side(3, 5, 9, 0.95))],
      ["mean AUC on-topic 0.940 < 0.950 - 0.005 tolerance"],
    ],
    [
      "a day without must-reads has nothing to lose",
      [day("d1", side(0, 0, 0, 0.95), side(0, 0, 0, 0.95))],
      [],
    ],
  ] as const)("%s", (_, days, worse) => {
    const verdict = gateVerdict(days as readonly GateDay[]);
    expect(verdict.worse).toEqual(worse);
    expect(verdict.promote).toBe(worse.length === 0);
  });

  it("refuses any loss at all with no slack", () => {
    const days = [
      day("d1", side(2, 5, 9, 0.95), side(3, 5, 9, 0.95)),
      day("d2", side(4, 6, 9, 0.95), side(3, 5, 9, 0.95)),
    ];
    expect(gateVerdict(days, 0.005, 0).worse).toEqual(["d1: top picks 2 < 3 - 0"]);
  });

  it("reports both means", () => {
    const verdict = gateVerdict([
      day("d1", side(1, 1, 1, 0.9), side(1, 1, 1, 0.8)),
      day("d2", side(1, 1, 1, 1), side(1, 1, 1, null)),
    ]);
    expect(verdict.mean_auc_on_topic.candidate).toBeCloseTo(0.95, 10);
    expect(verdict.mean_auc_on_topic.current).toBeCloseTo(0.8, 10);
  });
});

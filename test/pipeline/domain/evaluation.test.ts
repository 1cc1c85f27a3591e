// Decisions are written by hand here rather than taken from selectPicks, so these figures check the
// metrics alone and stay hand-checkable whatever the selection policy becomes.

import { describe, expect, it } from "vitest";
import type { Candidate } from "../../../pipeline/domain/candidate.ts";
import {
  aucOf,
  type DayMetrics,
  evaluateDay,
  gateDays,
  overallOf,
} from "../../../pipeline/domain/evaluation.ts";
import type { PaperLabel } from "../../../pipeline/domain/labels.ts";
import {
  AXIS_IDS,
  type AxisId,
  type AxisScore,
  type Evidence,
  totals,
} from "../../../pipeline/domain/score.ts";
import type { Decision, ScoredCandidate } from "../../../pipeline/domain/selection.ts";

/** A candidate whose axes add up to `total`, filled from A1 on, with optional evidence on A1. */
function paper(id: string, total: number, evidence: Evidence[] = []): ScoredCandidate {
  const candidate: Candidate = { id, title: `Paper ${id}`, summary: "", authors: [], categories: [] };
  const axes = {} as Record<AxisId, AxisScore>;
  let left = total;
  for (const axis of AXIS_IDS) {
    const score = Math.min(5, left);
    left -= score;
    axes[axis] = { score, evidence: axis === "A1" ? evidence : [] };
  }
  const scores = {
    scorer: "rules" as const,
    rubric_version: "test",
    axes,
    ...totals(axes),
    reg_fit: { score: 2, rationale: "", evidence: [] },
  };
  return { candidate, scores };
}

/** Decisions in the given (ranking) order; the ids listed in `kept` are picks ranked 1..n in that order. */
function decide(order: readonly string[], kept: readonly string[] = []): Decision[] {
  let rank = 0;
  return order.map((id) =>
    kept.includes(id)
      ? { id, kept: true, rank: ++rank, reason: `kept, rank ${rank}` }
      : { id, kept: false, rank: null, reason: "below threshold" },
  );
}

function labels(entries: Record<string, 0 | 1 | 2>): Record<string, PaperLabel> {
  return Object.fromEntries(
    Object.entries(entries).map(([id, label]) => [
      id,
      {
        label,
        group: label === 0 ? "none" : "substrate",
        reg_fit: label === 0 ? null : 2,
        why: "test",
      } satisfies PaperLabel,
    ]),
  );
}

/** Papers with these totals, ranked in the order given, each id its index (`2401.00000`, `2401.00001`, ...). */
function day(totalsInOrder: readonly number[], kept: number, labelled: Record<number, 0 | 1 | 2>) {
  const id = (index: number) => `2401.${String(index).padStart(5, "0")}`;
  const scored = totalsInOrder.map((total, index) => paper(id(index), total));
  const order = scored.map((entry) => entry.candidate.id);
  return evaluateDay({
    scored,
    decisions: decide(order, order.slice(0, kept)),
    labels: labels(
      Object.fromEntries(Object.entries(labelled).map(([index, label]) => [id(Number(index)), label])),
    ),
  });
}

describe("AUC (Mann-Whitney, ties count one half)", () => {
  it.each([
    ["every positive above every negative", [5, 4], [3, 2, 1], 1],
    ["every positive below every negative", [1], [2, 3], 0],
    ["all tied", [2, 2], [2, 2, 2], 0.5],
    ["one tie among four pairs", [3, 2], [2, 1], 0.875],
    ["mixed: 3 beats 1 and 2, ties 3, loses to 4", [3], [1, 2, 3, 4], (2 + 0.5) / 4],
    ["no positives", [], [1, 2], null],
    ["no negatives", [1], [], null],
  ])("%s", (_case, positives, negatives, expected) => {
    expect(aucOf(positives, negatives)).toBe(expected);
  });
});

describe("one labelled day", () => {
  it("precision counts only picks that have a label; unlabelled candidates are counted and ignored", () => {
    // Picks: 0 (label 2), 1 (no label), 2 (label 0), 3 (label 1).
    const metrics = day([20, 18, 16, 14, 12, 10], 4, { 0: 2, 2: 0, 3: 1, 4: 0, 5: 0 });
    expect(metrics).toMatchObject({
      screened: 6,
      labelled: 5,
      unlabelled: 1,
      labelled_picks: 3,
      on_topic_picks: 2,
      precision: 2 / 3,
      top: 1,
      label_counts: { top: 1, on_topic: 1, off_mission: 3 },
    });
    expect(metrics.picks.map((pick) => [pick.rank, pick.total, pick.label])).toEqual([
      [1, 20, 2],
      [2, 18, null],
      [3, 16, 0],
      [4, 14, 1],
    ]);
  });

  it("precision is null when no pick has a label, and a day without picks has none", () => {
    expect(day([20, 10], 1, { 1: 0 }).precision).toBeNull();
    expect(day([20, 10], 0, { 0: 2, 1: 0 })).toMatchObject({ picks: [], precision: null, top: 0 });
  });

  it.each<[string, Record<number, 0 | 1 | 2>, number]>([
    ["no label-2 paper", { 0: 1, 1: 0 }, 0],
    ["two label-2 papers", { 0: 2, 3: 2, 1: 0 }, 2],
    ["three", { 0: 2, 1: 2, 2: 2 }, 3],
    ["five: still three", { 0: 2, 1: 2, 2: 2, 3: 2, 4: 2 }, 3],
  ])("top_possible with %s is %i", (_case, labelled, possible) => {
    expect(day([9, 8, 7, 6, 5, 4], 2, labelled).top_possible).toBe(possible);
  });

  it("recall@10 counts label-2 papers in the first 10 of the ranking, picked or not", () => {
    // Label 2 at ranking positions 1, 5 and 11: two of three in the first 10.
    const metrics = day([30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19], 1, { 0: 2, 4: 2, 10: 2, 11: 0 });
    expect(metrics.recall_top10).toBeCloseTo(2 / 3, 12);
    expect(day([3, 2], 1, { 0: 1, 1: 0 }).recall_top10).toBeNull();
  });

  it("AUC of 2 against 0 and of >= 1 against 0 use the totals, with ties", () => {
    // Totals: label 2: 10, 6; label 1: 8; label 0: 6, 4.
    const metrics = day([10, 8, 6, 6, 4], 0, { 0: 2, 1: 1, 2: 2, 3: 0, 4: 0 });
    expect(metrics.auc).toBe((2 + 1.5) / 4);
    expect(metrics.auc_on_topic).toBe((2 + 2 + 1.5) / 6);
  });

  it("an empty day is valid: nothing to measure", () => {
    expect(evaluateDay({ scored: [], decisions: [], labels: {} })).toEqual({
      screened: 0,
      labelled: 0,
      unlabelled: 0,
      labels_not_in_listing: [],
      label_counts: { top: 0, on_topic: 0, off_mission: 0 },
      picks: [],
      labelled_picks: 0,
      on_topic_picks: 0,
      precision: null,
      top: 0,
      top_possible: 0,
      recall_top10: null,
      auc: null,
      auc_on_topic: null,
      false_positives: [],
      misses: [],
    } satisfies DayMetrics);
  });

  it("labels for ids missing from the listing are reported and left out of every figure", () => {
    const scored = [paper("2401.00001", 10), paper("2401.00002", 5)];
    const metrics = evaluateDay({
      scored,
      decisions: decide(["2401.00001", "2401.00002"], ["2401.00001"]),
      labels: labels({ "2401.00001": 2, "2401.00002": 0, "2501.99999": 2, "2401.55555": 0 }),
    });
    expect(metrics.labels_not_in_listing).toEqual(["2401.55555", "2501.99999"]);
    expect(metrics).toMatchObject({
      labelled: 2,
      label_counts: { top: 1, on_topic: 0, off_mission: 1 },
      top_possible: 1,
      recall_top10: 1,
      auc: 1,
    });
  });

  it("shows the five best-ranked label-0 papers and the five worst-ranked label-2 papers, with evidence", () => {
    const evidence = [{ signal: "A1.agents", text: "An agent that paints." }];
    const order = Array.from({ length: 14 }, (_, index) => `2401.${String(index).padStart(5, "0")}`);
    const scored = order.map((id, index) => paper(id, 30 - index, index === 0 ? evidence : []));
    // Label 0 at positions 1, 3, 5, 7, 9, 11; label 2 at 2, 4, 6, 8, 10, 12.
    const labelled = Object.fromEntries(
      order.slice(0, 12).map((id, index) => [id, index % 2 === 0 ? (0 as const) : (2 as const)]),
    );
    const metrics = evaluateDay({
      scored,
      decisions: decide(order, [order[0] as string]),
      labels: labels(labelled),
    });
    expect(metrics.false_positives.map((mistake) => mistake.rank)).toEqual([1, 3, 5, 7, 9]);
    expect(metrics.misses.map((mistake) => mistake.rank)).toEqual([12, 10, 8, 6, 4]);
    expect(metrics.false_positives[0]).toEqual({
      id: "2401.00000",
      title: "Paper 2401.00000",
      rank: 1,
      total: 30,
      groups: { substrate: 15, governance: 15, research: 0 },
      reg_fit: 2,
      kept: true,
      reason: "kept, rank 1",
      evidence: [{ axis: "A1", signal: "A1.agents", text: "An agent that paints." }],
    });
    expect(metrics.misses[0]).toMatchObject({ kept: false, reason: "below threshold", evidence: [] });
  });

  it("ranks by the decisions' order, whatever order the scores come in", () => {
    const scored = [paper("2401.00002", 5), paper("2401.00001", 9)];
    const metrics = evaluateDay({
      scored,
      decisions: decide(["2401.00001", "2401.00002"]),
      labels: labels({ "2401.00001": 0, "2401.00002": 2 }),
    });
    expect(metrics.false_positives[0]?.rank).toBe(1);
    expect(metrics.misses[0]?.rank).toBe(2);
  });
});

describe("over several days", () => {
  it("pools precision, sums top picks, averages AUC and recall over the days that have them", () => {
    const first = day([20, 18, 16, 4], 3, { 0: 2, 1: 0, 2: 1, 3: 0 }); // precision 2/3, AUC 1, on-topic 3/4
    const second = day([20, 10, 8], 1, { 0: 2, 1: 2, 2: 0 }); // precision 1/1, AUC 1
    const third = day([9, 8], 2, { 0: 1, 1: 0 }); // precision 1/2, AUC null
    const overall = overallOf([first, second, third]);
    expect(overall).toEqual({
      days: 3,
      screened: 9,
      picks: 6,
      labelled_picks: 6,
      on_topic_picks: 4,
      precision: 4 / 6,
      top: 2,
      top_possible: 3,
      auc_mean: 1,
      auc_min: 1,
      auc_on_topic_mean: (0.75 + 1 + 1) / 3,
      auc_on_topic_min: 0.75,
      recall_top10_mean: 1,
    });
    expect(overallOf([])).toMatchObject({ days: 0, precision: null, auc_mean: null, auc_min: null });
  });

  it("the mean and minimum AUC differ when the days do", () => {
    const good = day([10, 5], 0, { 0: 2, 1: 0 });
    const bad = day([10, 5], 0, { 0: 0, 1: 2 });
    expect(overallOf([good, bad])).toMatchObject({ auc_mean: 0.5, auc_min: 0 });
  });
});

describe("the gate", () => {
  const days = [
    { day: "2025-11-19", precision: 0.5, auc: 0.99 },
    { day: "2026-03-11", precision: 1, auc: 0.87 },
    { day: "2026-06-12", precision: null, auc: null },
  ];

  it.each([
    ["no bounds", {}, []],
    ["a precision bound", { min_precision: 0.9 }, [["2025-11-19", "precision", 0.5, 0.9]]],
    ["an AUC bound", { min_auc: 0.95 }, [["2026-03-11", "auc", 0.87, 0.95]]],
    [
      "both",
      { min_precision: 0.9, min_auc: 0.95 },
      [
        ["2025-11-19", "precision", 0.5, 0.9],
        ["2026-03-11", "auc", 0.87, 0.95],
      ],
    ],
    ["a value equal to its bound passes", { min_precision: 0.5, min_auc: 0.87 }, []],
  ])("%s", (_case, bounds, expected) => {
    const result = gateDays(days, bounds);
    expect(result.misses.map((miss) => [miss.day, miss.metric, miss.value, miss.bound])).toEqual(expected);
    expect(result.passed).toBe(expected.length === 0);
    expect(result.bounds).toEqual(bounds);
  });
});

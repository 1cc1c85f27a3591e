import { describe, expect, it } from "vitest";
import type { PaperLabel } from "../../../pipeline/domain/labels.ts";
import { AXIS_IDS, type Scores } from "../../../pipeline/domain/score.ts";
import type { ScoredCandidate } from "../../../pipeline/domain/selection.ts";
import {
  compareSelections,
  nestedSelection,
  SELECTION_RULES,
  SHIPPABLE_RULES,
} from "../../../pipeline/domain/selection-comparison.ts";

function paper(id: string, rank: number, total: number, regFit: 1 | 2 | 3): ScoredCandidate {
  return {
    candidate: { id, title: id, summary: "", authors: [], categories: [] },
    scores: {
      scorer: "rules",
      rubric_version: "test",
      axes: Object.fromEntries(
        AXIS_IDS.map((axis) => [axis, { score: 0, evidence: [] }]),
      ) as unknown as Scores["axes"],
      groups: { substrate: total, governance: 0, research: 0 },
      total,
      reg_fit: { score: regFit, rationale: "", evidence: [] },
    },
    ranking: {
      relevance: { on_topic: rank, top: rank, regulated: 0.5, must_read: rank },
      rank_score: rank,
      why_ranked: [],
    },
  };
}
const label = (value: 0 | 1 | 2): PaperLabel => ({
  label: value,
  group: value === 0 ? "none" : "governance",
  reg_fit: value === 0 ? null : 2,
  why: "test",
});

// The model's first is a must-read the floor turns away (REG FIT 1); below it, two off-mission papers
// the floor also turns away, then two must-reads that clear it.
const day = {
  date: "2026-01-05",
  scored: [
    paper("must-low-fit", 0.95, 10, 1),
    paper("off-1", 0.9, 8, 1),
    paper("off-2", 0.85, 8, 1),
    paper("must-2", 0.5, 12, 2),
    paper("must-3", 0.4, 12, 3),
    ...Array.from({ length: 10 }, (_, i) => paper(`filler-${i}`, 0.01, 0, 1)),
  ],
  labels: {
    "must-low-fit": label(2),
    "off-1": label(0),
    "off-2": label(0),
    "must-2": label(2),
    "must-3": label(2),
    ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`filler-${i}`, label(0)])),
  },
};

describe("compareSelections", () => {
  const comparison = compareSelections([day]);
  const rule = (name: string) => comparison.rules.find((item) => item.name === name);

  it("measures every rule on the same ranking: picks, precision and must-reads", () => {
    expect(comparison.rules.map((item) => item.name)).toEqual(SELECTION_RULES.map((item) => item.name));
    expect(rule("rubric floor (total 6, REG FIT 2)")?.days[0]).toEqual({
      date: "2026-01-05",
      picks: 2,
      precision: 1,
      top: 2,
      must_reads: 3,
      top_possible: 3,
      recall: 2 / 3,
    });
  });

  it("chooses the rule that keeps precision >= 0.9 and publishes the most must-reads; the earlier wins a tie", () => {
    // Sparing the model's first three, or no floor, finds the third must-read but lets both off-mission
    // papers in: precision 0.6, not chosen. The floor and REG FIT alone tie at two; the floor is listed first.
    expect(rule("rubric floor, sparing the model's first 3")).toMatchObject({
      top: 3,
      min_precision: 0.6,
      precise: false,
    });
    expect(rule("no floor (the six best-ranked)")).toMatchObject({ top: 3, precise: false });
    expect(rule("REG FIT 2 only")).toMatchObject({ top: 2, precise: true });
    expect(comparison.best).toBe("rubric floor (total 6, REG FIT 2)");
  });

  it("says so when no rule is precise enough: on this day, none of the rules that may ship", () => {
    expect(SHIPPABLE_RULES.every((item) => item.policy.min_reg_fit === 1)).toBe(true);
    expect(SHIPPABLE_RULES[0]?.name).toBe("no floor (the six best-ranked)");
    expect(compareSelections([day], SHIPPABLE_RULES).best).toBeNull();
  });
});

// A day where the model's first six are the day's six must-reads, three of them REG FIT 1.
const clean = {
  date: "2026-01-06",
  scored: [
    ...Array.from({ length: 6 }, (_, i) => paper(`clean-must-${i}`, 0.9 - i / 100, 12, i < 3 ? 1 : 2)),
    ...Array.from({ length: 10 }, (_, i) => paper(`clean-off-${i}`, 0.01, 0, 1)),
  ],
  labels: {
    ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`clean-must-${i}`, label(2)])),
    ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`clean-off-${i}`, label(0)])),
  },
};

describe("nestedSelection", () => {
  const nested = nestedSelection(
    "test",
    [
      { held: day, others: [clean] },
      { held: clean, others: [day] },
    ],
    SELECTION_RULES,
  );

  it("chooses each fold's rule on the other days and measures it on the held-out day", () => {
    // The clean day chooses no floor, which lets the first day's off-mission papers in; the first day
    // chooses the rubric floor, which turns away the clean day's three REG FIT 1 must-reads.
    expect(nested.days.map((item) => [item.date, item.rule, item.top, item.precision])).toEqual([
      ["2026-01-05", "no floor (the six best-ranked)", 3, 0.5],
      ["2026-01-06", "rubric floor (total 6, REG FIT 2)", 3, 1],
    ]);
    expect(nested).toMatchObject({ top: 6, min_precision: 0.5, days_top_met: 2 });
    expect(nested.rules).toEqual(SELECTION_RULES.map((item) => item.name));
  });
});

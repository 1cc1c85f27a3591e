import { existsSync, readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Candidate } from "../../../pipeline/domain/candidate.ts";
import { parseRubric } from "../../../pipeline/domain/rubric.ts";
import { AXIS_IDS, type AxisId, type AxisScore, type Scores } from "../../../pipeline/domain/score.ts";
import { compileRubric, scoreWith } from "../../../pipeline/domain/scorer.ts";
import {
  DEFAULT_SELECTION,
  RANKED_SELECTION,
  type ScoredCandidate,
  type SelectionPolicy,
  SelectionPolicySchema,
  selectPicks,
} from "../../../pipeline/domain/selection.ts";
import { LISTING_250, readListing } from "../../helpers/fixtures.ts";

interface Shape {
  id: string;
  total: number;
  regFit?: 1 | 2 | 3;
  research?: number;
  governance?: number;
}

// Spreads each group's points over its three axes so the Scores object is a valid one.
function scored({ id, total, regFit = 2, research = 0, governance = 0 }: Shape): ScoredCandidate {
  const substrate = total - research - governance;
  const spread = (points: number) => [0, 1, 2].map((i) => Math.floor(points / 3) + (i < points % 3 ? 1 : 0));
  const levels = [...spread(substrate), ...spread(governance), ...spread(research)];
  const axes = {} as Record<AxisId, AxisScore>;
  AXIS_IDS.forEach((axis, i) => {
    axes[axis] = { score: levels[i] ?? 0, evidence: [] };
  });
  const scores: Scores = {
    scorer: "rules",
    rubric_version: "test",
    axes,
    groups: { substrate, governance, research },
    total,
    reg_fit: { score: regFit, rationale: "", evidence: [] },
  };
  return { candidate: { id, title: id, summary: "", authors: [], categories: [] }, scores };
}

const policy: SelectionPolicy = { min_total: 22, min_reg_fit: 2, max_picks: 8 };

describe("selectPicks", () => {
  it.each([
    [
      "total first",
      [
        { id: "b", total: 23 },
        { id: "a", total: 30 },
      ],
      ["a", "b"],
    ],
    [
      "then REG FIT",
      [
        { id: "a", total: 25, regFit: 2 as const },
        { id: "b", total: 25, regFit: 3 as const },
      ],
      ["b", "a"],
    ],
    [
      "then research",
      [
        { id: "a", total: 25, research: 5 },
        { id: "b", total: 25, research: 9 },
      ],
      ["b", "a"],
    ],
    [
      "then governance",
      [
        { id: "a", total: 25, research: 5, governance: 4 },
        { id: "b", total: 25, research: 5, governance: 8 },
      ],
      ["b", "a"],
    ],
    [
      "then id, by code unit",
      [
        { id: "2401.00010", total: 25 },
        { id: "2401.00002", total: 25 },
      ],
      ["2401.00002", "2401.00010"],
    ],
    [
      "old-style ids after new ones",
      [
        { id: "cs/0112017", total: 25 },
        { id: "2401.00002", total: 25 },
      ],
      ["2401.00002", "cs/0112017"],
    ],
  ])("orders by %s", (_name, shapes, order) => {
    expect(selectPicks(shapes.map(scored), policy).map((d) => d.id)).toEqual(order);
  });

  it("says why each candidate was or was not kept", () => {
    const shapes: Shape[] = [
      { id: "kept-1", total: 27 },
      { id: "kept-2", total: 22 },
      { id: "over", total: 24, regFit: 1 },
      { id: "low", total: 14, regFit: 3 },
    ];
    expect(selectPicks(shapes.map(scored), policy)).toEqual([
      { id: "kept-1", kept: true, rank: 1, reason: "kept: total 27 >= 22, rank 1" },
      { id: "over", kept: false, rank: null, reason: "REG FIT 1 < 2 (total 24 >= 22)" },
      { id: "kept-2", kept: true, rank: 2, reason: "kept: total 22 >= 22, rank 2" },
      { id: "low", kept: false, rank: null, reason: "below threshold: total 14 < 22" },
    ]);
  });

  it("keeps at most max_picks and says the others cleared the threshold", () => {
    const decisions = selectPicks(
      [30, 29, 28].map((total, i) => scored({ id: `p${i}`, total })),
      { ...policy, max_picks: 2 },
    );
    expect(decisions.map((d) => d.rank)).toEqual([1, 2, null]);
    expect(decisions[2]?.reason).toBe("cleared threshold (total 28) but over the daily maximum of 2");
  });

  it.each([
    ["nothing clears", [10, 21, 5], policy],
    ["max_picks is 0", [30, 40], { ...policy, max_picks: 0 }],
    ["there are no candidates", [], policy],
  ])("keeps none when %s", (_name, totals, chosen) => {
    const decisions = selectPicks(
      totals.map((total, i) => scored({ id: `c${i}`, total })),
      chosen,
    );
    expect(decisions).toHaveLength(totals.length);
    expect(decisions.filter((d) => d.kept)).toEqual([]);
  });

  it("gives every candidate one decision, in ranking order, whatever the input order", () => {
    const shape = fc.record({
      id: fc.stringMatching(/^\d{4}\.\d{5}$/),
      total: fc.integer({ min: 0, max: 45 }),
      regFit: fc.constantFrom(1 as const, 2 as const, 3 as const),
      research: fc.integer({ min: 0, max: 15 }),
    });
    const shapes = fc.uniqueArray(shape, { selector: (s) => s.id, maxLength: 40 });
    const policies = fc.record({
      min_total: fc.integer({ min: 0, max: 45 }),
      min_reg_fit: fc.integer({ min: 1, max: 3 }),
      max_picks: fc.integer({ min: 0, max: 10 }),
    });
    fc.assert(
      fc.property(shapes, policies, fc.infiniteStream(fc.nat()), (list, chosen, noise) => {
        const input = list.map((s) => scored({ ...s, research: Math.min(s.research, s.total) }));
        const shuffled = [...input].sort(() => (noise.next().value % 3) - 1);
        const decisions = selectPicks(input, chosen);
        expect(selectPicks(shuffled, chosen)).toEqual(decisions);
        expect(decisions.map((d) => d.id).sort()).toEqual(list.map((s) => s.id).sort());
        const kept = decisions.filter((d) => d.kept);
        expect(kept.length).toBeLessThanOrEqual(chosen.max_picks);
        expect(kept.map((d) => d.rank)).toEqual(kept.map((_, i) => i + 1));
        const byId = new Map(input.map((s) => [s.candidate.id, s.scores]));
        for (const d of kept) {
          expect(byId.get(d.id)?.total).toBeGreaterThanOrEqual(chosen.min_total);
          expect(byId.get(d.id)?.reg_fit.score).toBeGreaterThanOrEqual(chosen.min_reg_fit);
        }
        const totals = decisions.map((d) => byId.get(d.id)?.total ?? -1);
        expect(totals).toEqual([...totals].sort((a, b) => b - a));
      }),
      { numRuns: 200 },
    );
  });

  it("ships a default policy that its own schema accepts", () => {
    expect(SelectionPolicySchema.parse(DEFAULT_SELECTION)).toEqual(DEFAULT_SELECTION);
    expect(SelectionPolicySchema.parse(RANKED_SELECTION)).toEqual(RANKED_SELECTION);
  });
});

/** A candidate as the relevance model ranks it: rank score and heads given, must-read likelihood too. */
function ranked(shape: Shape & { rank: number; mustRead?: number; onTopic?: number }): ScoredCandidate {
  const relevance = {
    on_topic: shape.onTopic ?? 0.9,
    top: shape.rank,
    regulated: 0.5,
    ...(shape.mustRead === undefined ? {} : { must_read: shape.mustRead }),
  };
  return { ...scored(shape), ranking: { relevance, rank_score: shape.rank, why_ranked: [] } };
}

describe("selectPicks over the model's ranking", () => {
  const day = [
    ranked({ id: "a", total: 4, regFit: 1, rank: 0.9, mustRead: 0.8, onTopic: 0.95 }),
    ranked({ id: "b", total: 12, rank: 0.8, mustRead: 0.6, onTopic: 0.9 }),
    ranked({ id: "c", total: 9, regFit: 1, rank: 0.7, mustRead: 0.3, onTopic: 0.4 }),
    ranked({ id: "d", total: 15, regFit: 3, rank: 0.6, mustRead: 0.05, onTopic: 0.8 }),
  ];
  const kept = (rule: SelectionPolicy) =>
    selectPicks(day, rule)
      .filter((decision) => decision.kept)
      .map((decision) => decision.id);

  const floor: SelectionPolicy = { min_total: 6, min_reg_fit: 2, max_picks: 6 };

  it("keeps the model's best-ranked, with no floor, saying the rubric decided nothing", () => {
    expect(kept(RANKED_SELECTION)).toEqual(["a", "b", "c", "d"]);
    expect(selectPicks(day, RANKED_SELECTION)[0]?.reason).toBe(
      "kept: rank score 0.90, total 4, REG FIT 1, no floor, rank 1",
    );
    expect(kept({ ...RANKED_SELECTION, max_picks: 2 })).toEqual(["a", "b"]);
  });

  it("orders by the model and filters by a rubric floor when one is given", () => {
    expect(kept(floor)).toEqual(["b", "d"]);
    expect(selectPicks(day, floor)[1]?.reason).toBe("kept: rank score 0.80, total 12 >= 6, rank 1");
  });

  it("spares the model's first n from the floor, and only them", () => {
    expect(kept({ ...floor, floor_spares_top: 1 })).toEqual(["a", "b", "d"]);
    const decisions = selectPicks(day, { ...floor, floor_spares_top: 1 });
    expect(decisions[0]?.reason).toMatch(/spared the floor as the model's first/);
    expect(decisions[2]?.reason).toMatch(/REG FIT 1 < 2/);
  });

  it("holds picks to a must-read likelihood, and to the on-topic head, saying which", () => {
    const noFloor = { min_total: 0, min_reg_fit: 1, max_picks: 6 };
    expect(kept({ ...noFloor, min_must_read: 0.25 })).toEqual(["a", "b", "c"]);
    expect(kept({ ...noFloor, min_on_topic: 0.5 })).toEqual(["a", "b", "d"]);
    const decisions = selectPicks(day, { ...noFloor, min_must_read: 0.25 });
    expect(decisions[3]?.reason).toBe("must-read likelihood 0.05 < 0.25");
  });

  it("lets a candidate without a likelihood (a day ranked before calibration) through the threshold", () => {
    const old = [ranked({ id: "x", total: 10, rank: 0.5 })];
    expect(
      selectPicks(old, { min_total: 0, min_reg_fit: 1, max_picks: 6, min_must_read: 0.5 })[0]?.kept,
    ).toBe(true);
  });
});

const rubric = parseRubric(
  JSON.parse(readFileSync(new URL("../../../data/rubric.json", import.meta.url), "utf8")),
);
const compiled = compileRubric(rubric);
const scoreAll = (candidates: readonly Candidate[]) =>
  candidates.map((candidate) => ({ candidate, scores: scoreWith(compiled, candidate) }));

// The listing repeats cross-listed papers; a day counts each id once, as the sources do.
function realDay(): Candidate[] {
  return readListing(LISTING_250);
}

describe("calibration on a real announcement day (2026-06-12: 314 rows, 250 papers)", () => {
  const day = realDay();
  const decisions = selectPicks(scoreAll(day), DEFAULT_SELECTION);
  const kept = new Set(decisions.filter((d) => d.kept).map((d) => d.id));

  it("has 250 distinct papers and keeps about five of them", () => {
    expect(day).toHaveLength(250);
    expect(kept.size).toBeGreaterThanOrEqual(4);
    expect(kept.size).toBeLessThanOrEqual(7);
  });

  it.each([
    // Audits LangChain, AutoGPT and the OpenAI Agents SDK for containment, shows memory poisoning
    // across seeds, and adds a policy gate and memory validator with measured overhead.
    ["2606.12797"],
    // Repairs MCP tool workflows for compact agents; held-out MCP-Bench tasks on live servers; code on GitHub.
    ["2606.12674"],
    // What an agent's memory keeps under a budget; bootstrap CIs over baselines; open source, one CPU.
    ["2606.12945"],
    // Audits what LLMs know about their tools (ToolBench, 47k tools) and releases the framework.
    ["2606.12451"],
  ])("keeps %s", (id) => {
    expect(kept.has(id)).toBe(true);
  });

  it.each([
    // A research agenda for regulated process automation: on topic, but no evaluation of its own.
    ["2606.13405"],
    // A tutorial on world models: no contribution or evaluation of its own.
    ["2606.12783"],
    // A speculative report on the path from AGI to superintelligence.
    ["2606.12683"],
    // Voting theory (cs.GT): off topic for agent substrate and governance.
    ["2606.12785"],
  ])("does not keep %s", (id) => {
    expect(day.some((candidate) => candidate.id === id)).toBe(true);
    expect(kept.has(id)).toBe(false);
  });

  it("scores the whole day the same way twice, byte for byte, in any input order", () => {
    const again = scoreAll([...day].reverse()).reverse();
    expect(JSON.stringify(again)).toBe(JSON.stringify(scoreAll(day)));
    expect(selectPicks(again.slice().reverse(), DEFAULT_SELECTION)).toEqual(decisions);
  });
});

const SAMPLE_DIR = new URL("../../../data/sample/", import.meta.url);
const sampleDays = existsSync(SAMPLE_DIR)
  ? readdirSync(SAMPLE_DIR).filter((name) => name.endsWith(".json"))
  : [];

describe("calibration on the embedded sample days", () => {
  it.each(sampleDays)("%s keeps four to seven papers", (name) => {
    const { candidates } = JSON.parse(readFileSync(new URL(name, SAMPLE_DIR), "utf8")) as {
      candidates: Candidate[];
    };
    const kept = selectPicks(scoreAll(candidates), DEFAULT_SELECTION).filter((d) => d.kept);
    expect(kept.length).toBeGreaterThanOrEqual(4);
    expect(kept.length).toBeLessThanOrEqual(7);
  });
});

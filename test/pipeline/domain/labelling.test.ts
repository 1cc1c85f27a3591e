import { beforeAll, describe, expect, it } from "vitest";
import {
  ASKED_AFTER_PICKS,
  headToHead,
  LABELLING_STRATEGIES,
  type LabellingCandidate,
  labellingOrder,
  labellingQueue,
  nearDuplicateTitles,
  type QueueCandidate,
  SIMULATION_MIN_DAYS,
  type SimulationResult,
  simulateLabelling,
} from "../../../pipeline/domain/labelling.ts";
import {
  DEFAULT_TRAIN_SETTINGS,
  type LabelledDay,
  type TrainSettings,
} from "../../../pipeline/domain/relevance-training.ts";
import { readLabelledDays } from "../../../pipeline/relevance-file.ts";
import { LABELLED_DAYS } from "../../helpers/curation.ts";

const candidate = (title: string, top: number, onTopic: number, rankScore: number): LabellingCandidate => ({
  title,
  top,
  on_topic: onTopic,
  rank_score: rankScore,
});

// A day a person can check: must-reads the model is sure of, unsure papers, off-mission ones.
const items: LabellingCandidate[] = [
  candidate("Auditing tool-using agents in banks", 0.97, 0.99, 0.95),
  candidate("Prompt injection defences for agent runtimes", 0.52, 0.93, 0.7),
  candidate("Image segmentation of cell pixels", 0.01, 0.02, 0.01),
  candidate("Memory for long-horizon LLM agents", 0.45, 0.9, 0.65),
  candidate("Memory for long-horizon LLM agents, revisited", 0.47, 0.9, 0.66),
  candidate("A benchmark of clinical agents", 0.3, 0.8, 0.5),
  candidate("Graph theory of random walks", 0.02, 0.4, 0.2),
];

describe("labelling orders", () => {
  it("best-ranked follows the rank score, ties by position", () => {
    expect(labellingOrder("best-ranked", items)).toEqual([0, 1, 4, 3, 5, 6, 2]);
  });

  it("most-uncertain asks first where the must-read head is nearest 0.5, putting a near-duplicate title off to the end", () => {
    const order = labellingOrder("most-uncertain", items);
    expect(order.slice(0, 3)).toEqual([1, 4, 5]);
    // "Memory for long-horizon LLM agents" is the revisited paper's near-duplicate: asked after every other.
    expect(order.at(-1)).toBe(3);
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("random is a seeded shuffle: the same seed gives the same order, another seed another", () => {
    const many = Array.from({ length: 50 }, (_, i) => candidate(`paper ${i}`, i / 50, 0.5, i / 50));
    const first = labellingOrder("random", many, 7);
    expect(labellingOrder("random", many, 7)).toEqual(first);
    expect(labellingOrder("random", many, 8)).not.toEqual(first);
    expect([...first].sort((a, b) => a - b)).toEqual(many.map((_, i) => i));
  });

  it("calls titles near duplicates when they share more than half their terms", () => {
    const terms = (text: string) => new Set(text.split(" "));
    expect(nearDuplicateTitles(terms("agent memory benchmark"), terms("agent memory benchmark v2"))).toBe(
      true,
    );
    expect(nearDuplicateTitles(terms("agent memory benchmark"), terms("agent tool sandbox"))).toBe(false);
    expect(nearDuplicateTitles(new Set(), terms("agent"))).toBe(false);
  });
});

describe("labellingQueue (the order of `picks label`)", () => {
  const screened = (id: number, kept: boolean, rank: number | null, top?: number): QueueCandidate => ({
    title: `paper about topic${id}`,
    kept,
    rank,
    ...(top === undefined ? {} : { relevance: { on_topic: 0.9, top }, rank_score: top }),
  });

  it("asks about the picks by rank, then where the model is least sure, at most 20 of them", () => {
    const candidates = [
      screened(1, true, 2, 0.95),
      screened(0, true, 1, 0.99),
      ...Array.from({ length: 30 }, (_, i) => screened(10 + i, false, null, 0.9 - i * 0.03)),
    ];
    const queue = labellingQueue(candidates);
    expect(queue).toHaveLength(2 + ASKED_AFTER_PICKS);
    expect(queue.slice(0, 2).map((item) => item.why)).toEqual(["pick 1", "pick 2"]);
    // The unpicked paper nearest 0.5 (0.9 - 13 * 0.03 = 0.51) comes first, not the best-ranked (0.9).
    expect(queue[2]?.candidate.title).toBe("paper about topic23");
    expect(queue[2]?.why).toBe("model unsure: must-read 0.51, on topic 0.90");
  });

  it("falls back to the best-ranked not picked on a day the rules ranked (no heads)", () => {
    const candidates = [
      screened(0, true, 1),
      ...Array.from({ length: 25 }, (_, i) => screened(i + 1, false, null)),
    ];
    const queue = labellingQueue(candidates);
    expect(queue.slice(1).map((item) => item.candidate)).toEqual(candidates.slice(1, 1 + ASKED_AFTER_PICKS));
    expect(queue[1]?.why).toBe("best-ranked not picked");
  });
});

const train: TrainSettings = { ...DEFAULT_TRAIN_SETTINGS, version: "relevance-0000.00.0" };

describe("simulateLabelling on real days, small setting (one day held out, k = 10)", () => {
  // Four released days: 2026-06-12 is held out, its base the two days after it, the last one scored.
  const chosen = ["2026-04-22", "2026-06-12", "2026-06-24", "2026-07-01"];
  let days: LabelledDay[];
  let result: SimulationResult;

  beforeAll(async () => {
    const wanted = LABELLED_DAYS.filter((day) => chosen.includes(day.date));
    ({ days } = await readLabelledDays(
      wanted.map((day) => day.labels),
      wanted.map((day) => day.listing),
    ));
    result = simulateLabelling(days, {
      train,
      strategies: LABELLING_STRATEGIES,
      ks: [10],
      base_days: 2,
      held_out: ["2026-06-12"],
    });
  }, 120_000);

  it("holds one run with its base, scored day and a curve per strategy", () => {
    expect(result.runs).toHaveLength(1);
    const [run] = result.runs;
    expect(run?.held_out).toBe("2026-06-12");
    expect(run?.base).toEqual(["2026-06-24", "2026-07-01"]);
    expect(run?.scored).toEqual(["2026-04-22"]);
    expect(run?.curves.map((curve) => `${curve.strategy} ${curve.k}`)).toEqual([
      "random 10",
      "best-ranked 10",
      "most-uncertain 10",
    ]);
    for (const curve of run?.curves ?? []) {
      const { top, on_topic: onTopic, off_mission: off } = curve.answers;
      expect(top + onTopic + off).toBe(10);
    }
    expect(result.curves.map((point) => `${point.strategy} ${point.k} ${point.pairs}`)).toEqual([
      "base 0 1",
      "random 10 1",
      "best-ranked 10 1",
      "most-uncertain 10 1",
    ]);
  });

  it("never leaves the figures worse than garbage: every curve ranks the scored day far above chance", () => {
    for (const point of result.curves) {
      expect(point.auc_on_topic).toBeGreaterThan(0.85);
      expect(point.auc).toBeGreaterThan(0.9);
      expect(point.average_precision).toBeGreaterThan(0.2);
      expect(point.recall_top10).toBeGreaterThanOrEqual(0.2);
    }
    // Ten answers move the model, but by little: no curve is far from the base.
    const base = result.curves[0]?.average_precision as number;
    for (const point of result.curves) {
      expect(Math.abs((point.average_precision as number) - base)).toBeLessThan(0.15);
    }
  });

  it("asks different papers under each strategy: best-ranked finds must-reads, random mostly off-mission", () => {
    const answers = Object.fromEntries(
      (result.runs[0]?.curves ?? []).map((curve) => [curve.strategy, curve.answers]),
    );
    expect(answers["best-ranked"]?.top).toBeGreaterThan(answers.random?.top as number);
    expect(answers.random?.off_mission).toBeGreaterThan(answers["most-uncertain"]?.off_mission as number);
    const asked = (result.runs[0]?.curves ?? []).map((curve) => curve.asked);
    for (const order of asked) expect(new Set(order).size).toBe(10);
    expect(new Set(asked.map((order) => [...order].sort((a, b) => a - b).join(","))).size).toBe(3);
  });

  it("gives the same figures on a rerun", () => {
    const again = simulateLabelling(days, {
      train,
      strategies: ["most-uncertain"],
      ks: [10],
      base_days: 2,
      held_out: ["2026-06-12"],
    });
    expect(again.runs[0]?.base_figures).toEqual(result.runs[0]?.base_figures);
    expect(again.runs[0]?.curves[0]).toEqual(result.runs[0]?.curves[2]);
    const duel = headToHead(result, "most-uncertain", "base", 10);
    expect(duel.pairs).toBe(1);
  }, 60_000);

  it(`refuses fewer than ${SIMULATION_MIN_DAYS} days, saying how many it needs, and a base too large`, () => {
    expect(() => simulateLabelling(days.slice(0, 2), { train, strategies: ["random"], ks: [10] })).toThrow(
      /needs at least 3 labelled days .*; got 2/,
    );
    expect(() => simulateLabelling(days, { train, strategies: ["random"], ks: [10], base_days: 3 })).toThrow(
      /1 to 2 of the 4 days/,
    );
  });
});

import { describe, expect, it } from "vitest";
import { compileRelevance, rankPaper, readRelevanceModel } from "../../../pipeline/domain/relevance-model.ts";
import {
  DEFAULT_TRAIN_SETTINGS,
  heldOutFigures,
  type TrainSettings,
  trainRelevance,
} from "../../../pipeline/domain/relevance-training.ts";
import { labelledDay } from "../../helpers/labelled-days.ts";

const days = [labelledDay("2026-01-05", 0), labelledDay("2026-01-06", 100), labelledDay("2026-01-07", 200)];
const settings: TrainSettings = {
  ...DEFAULT_TRAIN_SETTINGS,
  version: "relevance-2026.01.1",
  grid: [0.5, 2],
  regulated_weights: [0, 1],
};

describe("trainRelevance", () => {
  const model = trainRelevance(days, settings);
  const compiled = compileRelevance(model);
  const weight = (head: keyof typeof model.heads, term: string) =>
    model.heads[head].weights[model.vocabulary.indexOf(term)] as number;

  it("learns the expected signs: agent is on topic, governance a must-read, audit regulated, image off mission", () => {
    expect(weight("on_topic", "agent")).toBeGreaterThan(0);
    expect(weight("on_topic", "image")).toBeLessThan(0);
    expect(weight("top", "governance")).toBeGreaterThan(0);
    expect(weight("top", "runtime")).toBeLessThan(0);
    expect(weight("regulated", "audit")).toBeGreaterThan(0);
  });

  it("ranks a new must-read above a new on-topic paper above a new off-mission one, and says why", () => {
    const must = rankPaper(compiled, { title: "agent governance audit", summary: "", categories: ["cs.AI"] });
    const onTopic = rankPaper(compiled, { title: "agent tool runtime", summary: "", categories: ["cs.AI"] });
    const off = rankPaper(compiled, {
      title: "image segmentation pixels",
      summary: "",
      categories: ["cs.AI"],
    });
    expect(must.rank_score).toBeGreaterThan(onTopic.rank_score);
    expect(onTopic.rank_score).toBeGreaterThan(off.rank_score);
    expect(must.relevance.top).toBeGreaterThan(0.5);
    expect(off.relevance.on_topic).toBeLessThan(0.5);
    expect(must.why_ranked.map((reason) => reason.term)).toContain("governance");
    expect(must.why_ranked.every((reason) => reason.contribution > 0)).toBe(true);
  });

  it("writes a file its own schema accepts, with its training days and leave-one-day-out figures", () => {
    const read = readRelevanceModel(JSON.parse(JSON.stringify(model)));
    expect("model" in read).toBe(true);
    expect(model.training.days.map((item) => [item.date, item.label_counts])).toEqual(
      days.map((item) => [item.date, { top: 4, on_topic: 6, off_mission: 14 }]),
    );
    expect(model.cross_validation.map((item) => item.date)).toEqual(days.map((item) => item.date));
    expect(model.cross_validation.every((item) => item.recall_top10 === 1)).toBe(true);
  });

  it("is deterministic: the same days, in any order, give a byte-identical file", () => {
    const again = trainRelevance([...days].reverse(), settings);
    expect(JSON.stringify(again)).toBe(JSON.stringify(model));
  });

  it("keeps at most max_terms terms, the strongest, refitted on those alone", () => {
    const small = trainRelevance(days, { ...settings, max_terms: 5 });
    expect(small.vocabulary).toHaveLength(5);
    expect(small.heads.top.weights).toHaveLength(5);
    expect(small.vocabulary).toContain("governance");
  });

  it("refuses one day (nothing to leave out) and a head with one side only", () => {
    expect(() => trainRelevance(days.slice(0, 1), settings)).toThrow(/two labelled days/);
    const noTop = days.map((item) => ({ ...item, papers: item.papers.filter((p) => p.label !== 2) }));
    expect(() => trainRelevance(noTop, settings)).toThrow(/both sides of the top head/);
  });
});

describe("heldOutFigures", () => {
  it.each([
    {
      name: "a perfect ranking",
      labels: [2, 1, 0, 0] as const,
      scores: [0.9, 0.5, 0.2, 0.1],
      expected: { recall_top10: 1, auc: 1, auc_on_topic: 1 },
    },
    {
      name: "an inverted ranking",
      labels: [2, 1, 0] as const,
      scores: [0.1, 0.2, 0.9],
      expected: { recall_top10: 1, auc: 0, auc_on_topic: 0 },
    },
    {
      name: "a day without must-reads",
      labels: [1, 0] as const,
      scores: [0.9, 0.1],
      expected: { recall_top10: null, auc: null, auc_on_topic: 1 },
    },
  ])("$name", ({ labels, scores, expected }) => {
    expect(heldOutFigures("2026-01-05", labels, scores)).toMatchObject(expected);
  });

  it("counts only the first ten for recall", () => {
    const labels = [...Array(10).fill(0), 2] as Array<0 | 2>;
    const scores = labels.map((_, i) => 1 - i / 20);
    expect(heldOutFigures("d", labels, scores).recall_top10).toBe(0);
  });
});

describe("readRelevanceModel", () => {
  it("names an unknown format version, and a broken field", () => {
    // Format 1 had no calibration: a reader of format 2 refuses it rather than guess a must-read likelihood.
    expect(readRelevanceModel({ format: 1 })).toEqual({
      problem: expect.stringMatching(/format 1 is not one/),
    });
    expect(readRelevanceModel({ format: 2, version: "v1" })).toEqual({
      problem: expect.stringMatching(/^version: /),
    });
  });
});

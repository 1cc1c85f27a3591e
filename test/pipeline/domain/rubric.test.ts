import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseRubric, type Rubric } from "../../../pipeline/domain/rubric.ts";
import { AXIS_GROUP, AXIS_IDS } from "../../../pipeline/domain/score.ts";

const RUBRIC_PATH = new URL("../../../data/rubric.json", import.meta.url);
const rawRubric = (): Rubric => JSON.parse(readFileSync(RUBRIC_PATH, "utf8")) as Rubric;

describe("data/rubric.json", () => {
  const rubric = parseRubric(rawRubric());

  it("is the published rubric: a version, nine axes in order, their groups (DESIGN §3)", () => {
    expect(rubric.version).toMatch(/^\d{4}\.\d{1,2}\.\d+$/);
    expect(rubric.axes.map((axis) => axis.id)).toEqual([...AXIS_IDS]);
    for (const axis of rubric.axes) expect(axis.group).toBe(AXIS_GROUP[axis.id]);
  });

  it("describes every level 0..5 of every axis and 1..3 of REG FIT", () => {
    for (const axis of rubric.axes) {
      expect(axis.levels.map((level) => level.score)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(new Set(axis.levels.map((level) => level.meaning)).size).toBe(6);
    }
    expect(rubric.reg_fit.levels.map((level) => level.score)).toEqual([1, 2, 3]);
  });

  it("gives every axis a positive signal, and the research axes the negative ones the brief asks for", () => {
    for (const axis of rubric.axes) expect(axis.signals.some((signal) => signal.weight > 0)).toBe(true);
    const negative = rubric.axes.flatMap((axis) => axis.signals.filter((signal) => signal.weight < 0));
    const terms = negative.flatMap((signal) => signal.terms);
    expect(terms).toEqual(expect.arrayContaining(["position paper", "this survey", "tutorial on"]));
  });

  it("names SR 11-7 and GDPR Article 35 and gives each REG FIT criterion a remediation", () => {
    expect(rubric.reg_fit.frameworks.map((framework) => framework.id)).toEqual(["sr-11-7", "gdpr-art-35"]);
    expect(rubric.reg_fit.criteria.map((criterion) => criterion.id)).toEqual([
      "soundness",
      "validation",
      "monitoring",
      "data-protection",
    ]);
    for (const criterion of rubric.reg_fit.criteria) expect(criterion.remediation.length).toBeGreaterThan(20);
  });
});

type Mutation = (rubric: Rubric) => void;

describe("parseRubric refuses a broken rubric and says where", () => {
  const first = (rubric: Rubric) => rubric.axes[0] as Rubric["axes"][number];
  const firstSignal = (rubric: Rubric) =>
    first(rubric).signals[0] as Rubric["axes"][number]["signals"][number];
  const cases: Array<[string, Mutation, RegExp]> = [
    ["axes out of order", (r) => r.axes.reverse(), /Expected A1 at position 0/],
    [
      "an axis in the wrong group",
      (r) => {
        first(r).group = "research";
      },
      /Expected substrate/,
    ],
    [
      "five levels",
      (r) => {
        first(r).levels.pop();
      },
      /levels|6/,
    ],
    ["levels out of order", (r) => first(r).levels.reverse(), /levels must be 0..5 in order/],
    [
      "a signal of another axis",
      (r) => {
        firstSignal(r).id = "A2.misplaced";
      },
      /starting with A1\./,
    ],
    [
      "a duplicate signal id",
      (r) => first(r).signals.push({ ...firstSignal(r) }),
      /Duplicate signal id A1\./,
    ],
    [
      "a weight of 0",
      (r) => {
        firstSignal(r).weight = 0;
      },
      /weight of 0/,
    ],
    [
      "a star inside a term",
      (r) => {
        firstSignal(r).terms = ["age*nt"];
      },
      /only at the end/,
    ],
    [
      "a star after a short stem",
      (r) => {
        firstSignal(r).terms = ["ag*"];
      },
      /stem of 3\+ characters/,
    ],
    [
      "a term without words",
      (r) => {
        firstSignal(r).terms = ["--"];
      },
      /at least one word/,
    ],
    [
      "thresholds that do not ascend",
      (r) => {
        r.scoring.level_thresholds = [1, 1, 2, 3, 4];
      },
      /ascend/,
    ],
    [
      "an unknown blocking criterion",
      (r) => {
        r.reg_fit.decision.blocking = ["vibes"];
      },
      /Unknown criterion vibes/,
    ],
    [
      "a REG FIT criterion without a positive signal",
      (r) => {
        for (const signal of r.reg_fit.criteria[0]?.signals ?? []) signal.weight = -1;
      },
      /A criterion needs a positive signal/,
    ],
  ];

  it.each(cases)("%s", (_name, mutate, message) => {
    const rubric = rawRubric();
    mutate(rubric);
    expect(() => parseRubric(rubric)).toThrow(message);
  });

  it("accepts the file unchanged (so every case above fails only for its mutation)", () => {
    expect(() => parseRubric(rawRubric())).not.toThrow();
  });
});

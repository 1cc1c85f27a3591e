import { describe, expect, it } from "vitest";
import {
  calibrate,
  calibrationOf,
  fitPlatt,
  logitOf,
  reliabilityOf,
} from "../../../pipeline/domain/calibration.ts";
import { seededRandom } from "../../../pipeline/domain/labelling.ts";

// A synthetic set whose true probabilities are known: scores spread over (0, 1), and each paper a
// must-read with probability sigmoid(SLOPE * logit(score) + INTERCEPT), drawn by a seeded generator.
const SLOPE = 2.5;
const INTERCEPT = -1.5;
const truth = (score: number) => 1 / (1 + Math.exp(-(SLOPE * logitOf(score) + INTERCEPT)));

function syntheticDay(seed: number, papers: number) {
  const random = seededRandom(seed);
  const scores: number[] = [];
  const targets: (0 | 1)[] = [];
  for (let i = 0; i < papers; i++) {
    const score = 0.01 + 0.98 * random();
    scores.push(score);
    targets.push(random() < truth(score) ? 1 : 0);
  }
  return { scores, targets };
}

describe("fitPlatt", () => {
  it("recovers the known slope and intercept of a synthetic set", () => {
    const { scores, targets } = syntheticDay(7, 20_000);
    const fit = fitPlatt(scores, targets);
    expect(fit.slope).toBeCloseTo(SLOPE, 0);
    expect(Math.abs(fit.slope - SLOPE)).toBeLessThan(0.15);
    expect(Math.abs(fit.intercept - INTERCEPT)).toBeLessThan(0.15);
    for (const score of [0.05, 0.3, 0.5, 0.7, 0.95]) {
      expect(Math.abs(calibrate(fit, score) - truth(score)), `at ${score}`).toBeLessThan(0.03);
    }
  });

  it("is monotone: a higher rank score never means a lower likelihood", () => {
    const { scores, targets } = syntheticDay(11, 2_000);
    const fit = fitPlatt(scores, targets);
    const grid = Array.from({ length: 101 }, (_, i) => i / 100);
    const values = grid.map((score) => calibrate(fit, score));
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1] as number);
  });

  it("stays finite when the classes separate perfectly", () => {
    const fit = fitPlatt([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]);
    expect(Number.isFinite(fit.slope) && Number.isFinite(fit.intercept)).toBe(true);
    expect(calibrate(fit, 0.95)).toBeGreaterThan(0.5);
    expect(calibrate(fit, 0.05)).toBeLessThan(0.5);
  });
});

describe("reliabilityOf", () => {
  it("bins predictions and weighs each bin's gap by its size", () => {
    const { reliability, ece } = reliabilityOf([0.1, 0.1, 0.9, 0.9], [0, 1, 1, 1], [0, 0.5, 1]);
    expect(reliability).toEqual([
      { from: 0, to: 0.5, papers: 2, mean_predicted: 0.1, observed: 0.5 },
      { from: 0.5, to: 1, papers: 2, mean_predicted: 0.9, observed: 1 },
    ]);
    // (2/4) * |0.1 - 0.5| + (2/4) * |0.9 - 1|
    expect(ece).toBeCloseTo(0.25, 10);
  });

  it("puts a prediction of exactly 1 in the last bin, and leaves empty bins empty", () => {
    const { reliability } = reliabilityOf([1], [1], [0, 0.5, 1]);
    expect(reliability[0]).toMatchObject({ papers: 0, mean_predicted: null, observed: null });
    expect(reliability[1]).toMatchObject({ papers: 1, mean_predicted: 1, observed: 1 });
  });
});

describe("calibrationOf", () => {
  it("ships the pooled fit and measures it honestly, each day by a fit on the others", () => {
    const days = [1, 2, 3, 4, 5, 6].map((seed) => syntheticDay(seed, 3_000));
    const calibration = calibrationOf(days);
    expect(calibration).toMatchObject({ method: "platt", fitted_on: 18_000 });
    expect(Math.abs(calibration.slope - SLOPE)).toBeLessThan(0.15);
    // Well calibrated on the days held out: predicted and observed agree in every full bin.
    expect(calibration.ece).toBeLessThan(0.02);
    for (const bin of calibration.reliability.filter((item) => item.papers >= 500)) {
      expect(
        Math.abs((bin.mean_predicted as number) - (bin.observed as number)),
        `${bin.from}..${bin.to}`,
      ).toBeLessThan(0.05);
    }
  });

  it("says a set is miscalibrated when it is: raw scores of a skewed truth are far off, the fit is not", () => {
    const { scores, targets } = syntheticDay(5, 20_000);
    const raw = reliabilityOf(scores, targets);
    const fit = fitPlatt(scores, targets);
    const fitted = reliabilityOf(
      scores.map((score) => calibrate(fit, score)),
      targets,
    );
    expect(raw.ece).toBeGreaterThan(0.1);
    expect(fitted.ece).toBeLessThan(0.02);
  });
});

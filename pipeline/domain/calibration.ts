// Calibration of the rank score into a must-read likelihood: the chance that an expert would label the
// paper a must-read. The rank score orders one day well but is no probability (its heads are fitted
// class-balanced, so their values run high, and they move from model to model). Platt scaling, a
// logistic regression of the label on the score's log-odds, is fitted on out-of-fold scores (each paper
// scored by a model that never saw its day), so 0.7 means seven in ten on any day and in any fold.
// Platt rather than isotonic: eight days hold about sixty must-reads, too few for a step function
// whose steps would sit where those few papers happen to fall.

import { z } from "zod";
import { fitLogistic, sigmoid } from "./logistic-regression.ts";

export const ReliabilityBinSchema = z.object({
  from: z.number().min(0).max(1),
  to: z.number().min(0).max(1),
  papers: z.int().min(0),
  mean_predicted: z.number().min(0).max(1).nullable().describe("mean must-read likelihood in the bin"),
  observed: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .describe("share of the bin's papers the experts made must-reads"),
});
export type ReliabilityBin = z.infer<typeof ReliabilityBinSchema>;

export const CalibrationSchema = z.object({
  method: z.literal("platt"),
  rule: z.string().describe("the calibration in words"),
  slope: z.number(),
  intercept: z.number(),
  fitted_on: z.int().min(0).describe("out-of-fold scores the calibration was fitted on"),
  reliability: z
    .array(ReliabilityBinSchema)
    .describe("each day calibrated by a fit on the other days' out-of-fold scores, pooled into bins"),
  ece: z
    .number()
    .min(0)
    .max(1)
    .describe("expected calibration error of the same: sum of |predicted - observed| weighted by bin size"),
});
export type Calibration = z.infer<typeof CalibrationSchema>;
export type PlattFit = Pick<Calibration, "slope" | "intercept">;

export const CALIBRATION_RULE = "must_read = sigmoid(slope * logit(rank_score) + intercept)";

/** Bin edges: narrow where most papers sit (few are must-reads), wide above. */
export const RELIABILITY_EDGES = [0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.6, 1] as const;

// Scores are rounded to 4 places, so 0 and 1 occur; clamp before the log-odds.
const EDGE = 1e-4;
export const logitOf = (p: number): number => {
  const clamped = Math.min(1 - EDGE, Math.max(EDGE, p));
  return Math.log(clamped / (1 - clamped));
};

/**
 * Fits must_read = sigmoid(slope * logit(score) + intercept) by maximum likelihood (a negligible
 * penalty keeps it finite when the classes separate).
 * @example fitPlatt([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]).slope > 0 // true
 */
export function fitPlatt(scores: readonly number[], targets: readonly (0 | 1)[]): PlattFit {
  const rows = scores.map((score) => ({ indices: [0], values: [logitOf(score)] }));
  const fit = fitLogistic(rows, targets, 1, { c: 1e4, balanced: false, tolerance: 1e-6 });
  return { slope: fit.weights[0] as number, intercept: fit.intercept };
}

export const calibrate = (fit: PlattFit, score: number): number =>
  sigmoid(fit.slope * logitOf(score) + fit.intercept);

/** Predicted against observed, binned, and the expected calibration error. */
export function reliabilityOf(
  predicted: readonly number[],
  targets: readonly (0 | 1)[],
  edges: readonly number[] = RELIABILITY_EDGES,
): Pick<Calibration, "reliability" | "ece"> {
  const bins = edges
    .slice(0, -1)
    .map((from, i) => ({ from, to: edges[i + 1] as number, sum: 0, hits: 0, n: 0 }));
  predicted.forEach((p, k) => {
    const bin = bins.find((item, i) => p < item.to || i === bins.length - 1) as (typeof bins)[number];
    bin.n++;
    bin.sum += p;
    bin.hits += targets[k] as number;
  });
  const total = predicted.length;
  let ece = 0;
  const reliability = bins.map(({ from, to, sum, hits, n }) => {
    if (n > 0) ece += (n / total) * Math.abs(sum / n - hits / n);
    return {
      from,
      to,
      papers: n,
      mean_predicted: n === 0 ? null : round(sum / n),
      observed: n === 0 ? null : round(hits / n),
    };
  });
  return { reliability, ece: round(ece) };
}

const round = (value: number) => Number(value.toFixed(4));

/** One day's out-of-fold rank scores and whether each paper is a must-read. */
export interface OutOfFoldDay {
  scores: readonly number[];
  targets: readonly (0 | 1)[];
}

/**
 * The calibration to ship (fitted on every day's out-of-fold scores) and its honest reliability: each
 * day calibrated by a fit on the other days only, then pooled.
 */
export function calibrationOf(days: readonly OutOfFoldDay[]): Calibration {
  const pooled = (of: readonly OutOfFoldDay[]) => ({
    scores: of.flatMap((day) => day.scores),
    targets: of.flatMap((day) => day.targets),
  });
  const all = pooled(days);
  const fit = fitPlatt(all.scores, all.targets);
  const heldOut = days.flatMap((day) => {
    const others = pooled(days.filter((other) => other !== day));
    const bothSides = others.targets.includes(1) && others.targets.includes(0);
    const dayFit = bothSides ? fitPlatt(others.scores, others.targets) : fit;
    return day.scores.map((score) => calibrate(dayFit, score));
  });
  return {
    method: "platt",
    rule: CALIBRATION_RULE,
    slope: Number(fit.slope.toPrecision(6)),
    intercept: Number(fit.intercept.toPrecision(6)),
    fitted_on: all.scores.length,
    ...reliabilityOf(heldOut, all.targets),
  };
}

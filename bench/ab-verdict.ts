// What `npm run bench -- --compare REF` concludes from the runs of two builds: each figure's median
// and spread, and whether the medians differ by more than the spread. The spread is the range of a
// build's runs (largest minus smallest), and the difference counts only when it is larger than the
// wider of the two ranges: on a shared machine one run can land on another program's burst, and a
// difference smaller than what one build does from run to run is not the build's.
import { median } from "./median.ts";

export interface Summary {
  median: number;
  min: number;
  max: number;
  /** max - min: how far the runs of one build fell apart. */
  spread: number;
}

export interface Verdict {
  /** The candidate's median minus the reference's. */
  difference: number;
  /** The difference as a share of the reference's median (0.05 is 5 %). */
  relative: number;
  /** The wider of the two spreads, the yardstick the difference is held to. */
  spread: number;
  beyond: boolean;
  /** When beyond: whether the candidate is the better one, given which direction is better. */
  better?: boolean;
}

/** The median, the smallest and largest run and their range; NaN runs (a figure a run lacked) left out. */
export function summarize(values: readonly number[]): Summary {
  const runs = values.filter((value) => !Number.isNaN(value));
  if (runs.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, spread: Number.NaN };
  const min = Math.min(...runs);
  const max = Math.max(...runs);
  return { median: median(runs), min, max, spread: max - min };
}

/**
 * The reference's runs against the candidate's.
 * @example verdict([10, 11, 12], [15, 16, 17], "higher") // difference 5, spread 2, beyond, better
 */
export function verdict(
  reference: readonly number[],
  candidate: readonly number[],
  better: "higher" | "lower",
): Verdict {
  const a = summarize(reference);
  const b = summarize(candidate);
  const difference = b.median - a.median;
  const spread = Math.max(a.spread, b.spread);
  const beyond = Math.abs(difference) > spread;
  return {
    difference,
    relative: difference / a.median,
    spread,
    beyond,
    better: beyond ? (better === "higher" ? difference > 0 : difference < 0) : undefined,
  };
}

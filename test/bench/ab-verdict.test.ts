import { describe, expect, it } from "vitest";
import { summarize, verdict } from "../../bench/ab-verdict.ts";

describe("summarize", () => {
  it.each([
    { runs: [3, 1, 2], median: 2, min: 1, max: 3, spread: 2 },
    { runs: [4, 1, 3, 2], median: 2.5, min: 1, max: 4, spread: 3 },
    { runs: [5], median: 5, min: 5, max: 5, spread: 0 },
    { runs: [Number.NaN, 7, 9], median: 8, min: 7, max: 9, spread: 2 },
  ])("$runs: median $median, spread $spread", ({ runs, ...expected }) => {
    expect(summarize(runs)).toEqual(expected);
  });

  it("has no figures for no runs", () => {
    expect(summarize([Number.NaN]).median).toBeNaN();
  });
});

describe("verdict", () => {
  it.each([
    // Medians 11 and 16, both ranges 2: a difference of 5 is beyond them.
    { a: [10, 11, 12], b: [15, 16, 17], better: "higher", difference: 5, spread: 2, beyond: true, won: true },
    { a: [10, 11, 12], b: [15, 16, 17], better: "lower", difference: 5, spread: 2, beyond: true, won: false },
    {
      a: [20, 21, 22],
      b: [10, 11, 12],
      better: "lower",
      difference: -10,
      spread: 2,
      beyond: true,
      won: true,
    },
    // The wider spread is the yardstick: 11 -> 14 is 3, within the candidate's range of 8.
    { a: [10, 11, 12], b: [10, 14, 18], better: "higher", difference: 3, spread: 8, beyond: false },
    // A difference equal to the spread is not larger than it.
    { a: [10, 11, 12], b: [12, 13, 14], better: "higher", difference: 2, spread: 2, beyond: false },
    // One run of six on another program's burst widens the range, and the difference no longer counts.
    {
      a: [100, 101, 102, 100, 101, 60],
      b: [110, 111, 112, 110, 111, 109],
      better: "higher",
      difference: 10,
      spread: 42,
      beyond: false,
    },
  ] as const)("$a against $b ($better is better)", ({
    a,
    b,
    better,
    difference,
    spread,
    beyond,
    ...rest
  }) => {
    const found = verdict(a, b, better);
    expect(found.difference).toBeCloseTo(difference);
    expect(found.spread).toBeCloseTo(spread);
    expect(found.beyond).toBe(beyond);
    expect(found.better).toBe("won" in rest ? rest.won : undefined);
  });

  it("gives the difference as a share of the reference's median", () => {
    expect(verdict([200, 200], [210, 210], "higher").relative).toBeCloseTo(0.05);
  });
});

import { describe, expect, it } from "vitest";
import {
  fitLogistic,
  predictLogistic,
  type SparseRow,
  sigmoid,
} from "../../../pipeline/domain/logistic-regression.ts";

// Three features: 0 fires on positives, 1 on negatives, 2 on everything (no information).
const row = (...pairs: Array<[number, number]>): SparseRow => ({
  indices: pairs.map(([index]) => index),
  values: pairs.map(([, value]) => value),
});
const rows = [
  row([0, 1], [2, 1]),
  row([0, 0.8], [2, 1]),
  row([0, 0.9], [2, 1]),
  row([1, 1], [2, 1]),
  row([1, 0.7], [2, 1]),
  row([1, 0.9], [2, 1]),
];
const labels = [1, 1, 1, 0, 0, 0] as const;

describe("fitLogistic", () => {
  it("fits a separable toy set: positives above one half, negatives below", () => {
    const fit = fitLogistic(rows, labels, 3, { c: 10, balanced: true });
    rows.forEach((item, i) => {
      const p = predictLogistic(fit, item);
      if (labels[i] === 1) expect(p).toBeGreaterThan(0.5);
      else expect(p).toBeLessThan(0.5);
    });
  });

  it("gives the weights the expected signs, and the uninformative feature less than either", () => {
    const { weights } = fitLogistic(rows, labels, 3, { c: 10, balanced: true });
    expect(weights[0]).toBeGreaterThan(0);
    expect(weights[1]).toBeLessThan(0);
    expect(Math.abs(weights[2] as number)).toBeLessThan(Math.abs(weights[0] as number));
  });

  it("shrinks the weights as c falls (stronger regularisation)", () => {
    const loose = fitLogistic(rows, labels, 3, { c: 10, balanced: true });
    const tight = fitLogistic(rows, labels, 3, { c: 0.1, balanced: true });
    expect(Math.abs(tight.weights[0] as number)).toBeLessThan(Math.abs(loose.weights[0] as number));
  });

  it("reaches the optimum: the gradient of the objective is about zero there", () => {
    const c = 2;
    const fit = fitLogistic(rows, labels, 3, { c, balanced: false, tolerance: 1e-9 });
    // d/dw_j = w_j + c * sum_i (p_i - y_i) x_ij
    for (let j = 0; j < 3; j++) {
      let gradient = fit.weights[j] as number;
      rows.forEach((item, i) => {
        const k = item.indices.indexOf(j);
        if (k >= 0)
          gradient += c * (predictLogistic(fit, item) - (labels[i] as number)) * (item.values[k] as number);
      });
      expect(Math.abs(gradient)).toBeLessThan(1e-6);
    }
  });

  it("balances the classes: a rare positive class still gets probabilities near one half or above", () => {
    const skewed = [...rows.slice(0, 1), ...rows.slice(3), ...rows.slice(3), ...rows.slice(3)];
    const skewedLabels = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0] as const;
    const balanced = fitLogistic(skewed, skewedLabels, 3, { c: 1, balanced: true });
    const plain = fitLogistic(skewed, skewedLabels, 3, { c: 1, balanced: false });
    expect(predictLogistic(balanced, rows[0] as SparseRow)).toBeGreaterThan(
      predictLogistic(plain, rows[0] as SparseRow),
    );
  });

  it("is deterministic to the bit, and a warm start reaches the same optimum", () => {
    const first = fitLogistic(rows, labels, 3, { c: 3, balanced: true, tolerance: 1e-10 });
    const second = fitLogistic(rows, labels, 3, { c: 3, balanced: true, tolerance: 1e-10 });
    expect(Array.from(second.weights)).toEqual(Array.from(first.weights));
    const start = fitLogistic(rows, labels, 3, { c: 0.5, balanced: true });
    const warm = fitLogistic(rows, labels, 3, { c: 3, balanced: true, tolerance: 1e-10, start });
    for (const [j, weight] of warm.weights.entries())
      expect(weight).toBeCloseTo(first.weights[j] as number, 6);
  });

  it("refuses a set with one class only", () => {
    expect(() => fitLogistic(rows, [1, 1, 1, 1, 1, 1], 3, { c: 1, balanced: true })).toThrow(/both classes/);
  });

  it.each([
    [0, 0.5],
    [40, 1],
    [-40, 0],
    [-800, 0],
  ])("sigmoid(%d) is %d without overflow", (z, expected) => {
    expect(sigmoid(z)).toBeCloseTo(expected, 10);
  });
});

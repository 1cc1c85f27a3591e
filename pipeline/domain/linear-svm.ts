// A linear support vector machine (L2-regularised squared hinge loss, as scikit-learn's LinearSVC)
// fitted by liblinear's dual coordinate descent. Only the arxiv-sanity-style baseline of the readers'
// simulation uses it: the anchor the personal ranking is measured against. Rows are visited in order
// (liblinear shuffles), so a fit is deterministic.

import type { SparseRow } from "./logistic-regression.ts";

export interface LinearSvm {
  intercept: number;
  weights: Float64Array;
}

/**
 * Fits y = sign(weights . x + intercept); the intercept is a feature of value 1, regularised as
 * liblinear's. `balanced` weighs each class by n / (2 * its count).
 * @example fitLinearSvm(rows, [1, 0, 0], 10, { c: 0.1, balanced: true }).weights
 */
export function fitLinearSvm(
  rows: readonly SparseRow[],
  labels: readonly (0 | 1)[],
  features: number,
  options: { c: number; balanced: boolean; maxIterations?: number; tolerance?: number },
): LinearSvm {
  const n = rows.length;
  const positives = labels.reduce<number>((sum, label) => sum + label, 0);
  if (n === 0 || positives === 0 || positives === n) {
    throw new Error(`a linear SVM needs both classes (${positives} positive of ${n})`);
  }
  const classWeight = options.balanced ? [n / (2 * (n - positives)), n / (2 * positives)] : [1, 1];
  const weights = new Float64Array(features);
  let intercept = 0;
  const alpha = new Float64Array(n);
  const diagonal = Float64Array.from(labels, (label) => 1 / (2 * options.c * (classWeight[label] as number)));
  const squared = rows.map((row, i) => {
    let sum = 1; // the intercept's feature
    for (const value of row.values) sum += value * value;
    return sum + (diagonal[i] as number);
  });
  const maxIterations = options.maxIterations ?? 1_000;
  const tolerance = options.tolerance ?? 1e-4;
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    let largest = 0;
    for (let i = 0; i < n; i++) {
      const row = rows[i] as SparseRow;
      const y = labels[i] === 1 ? 1 : -1;
      let margin = intercept;
      for (let k = 0; k < row.indices.length; k++) {
        margin += (row.values[k] as number) * (weights[row.indices[k] as number] as number);
      }
      const a = alpha[i] as number;
      const gradient = y * margin - 1 + (diagonal[i] as number) * a;
      const projected = a === 0 ? Math.min(gradient, 0) : gradient;
      largest = Math.max(largest, Math.abs(projected));
      if (Math.abs(projected) < 1e-12) continue;
      const next = Math.max(a - gradient / (squared[i] as number), 0);
      const step = (next - a) * y;
      alpha[i] = next;
      for (let k = 0; k < row.indices.length; k++) {
        const j = row.indices[k] as number;
        weights[j] = (weights[j] as number) + step * (row.values[k] as number);
      }
      intercept += step;
    }
    if (largest < tolerance) break;
  }
  return { intercept, weights };
}

/** The signed distance-like score of a row: above zero, the positive side. */
export function svmDecision(svm: LinearSvm, row: SparseRow): number {
  let sum = svm.intercept;
  for (let k = 0; k < row.indices.length; k++) {
    sum += (row.values[k] as number) * (svm.weights[row.indices[k] as number] as number);
  }
  return sum;
}

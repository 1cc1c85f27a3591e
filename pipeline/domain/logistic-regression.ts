// L2-regularised logistic regression on sparse rows, fitted by L-BFGS. A few thousand rows and a few
// ten thousand features fit in tens of milliseconds; no package on the registry handles sparse features
// and stays deterministic to the byte, so this is the small, tested implementation the ranker needs.
// Every loop runs in a fixed order, so the same rows give bit-identical weights on any machine.

/** One example: the indices of its non-zero features, ascending, and their values. */
export interface SparseRow {
  indices: readonly number[];
  values: readonly number[];
}

export interface LogisticOptions {
  /** Inverse regularisation strength, as in scikit-learn: larger fits the rows more closely. */
  c: number;
  /** Weigh each class by n / (2 * its count), so a rare positive class counts as much as the other. */
  balanced: boolean;
  maxIterations?: number;
  /** Stop when the gradient's largest component falls below this. */
  tolerance?: number;
  /** Where to start (a fit of the same rows with a nearby `c`): fewer iterations to the same optimum. */
  start?: Pick<LogisticFit, "intercept" | "weights">;
}

export interface LogisticFit {
  intercept: number;
  weights: Float64Array;
  iterations: number;
}

const HISTORY = 10;

/** log(1 + exp(z)) without overflow. */
function softplus(z: number): number {
  return z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

function dot(row: SparseRow, weights: Float64Array): number {
  let sum = 0;
  for (let k = 0; k < row.indices.length; k++) {
    sum += (row.values[k] as number) * (weights[row.indices[k] as number] as number);
  }
  return sum;
}

/**
 * Fits P(y = 1 | x) = sigmoid(intercept + weights . x) by minimising
 * c * sum_i w_i * logloss_i + ||weights||^2 / 2 (the intercept is not penalised).
 * @example fitLogistic(rows, [1, 0, 1], 3, { c: 1, balanced: true }).weights
 */
export function fitLogistic(
  rows: readonly SparseRow[],
  labels: readonly (0 | 1)[],
  features: number,
  options: LogisticOptions,
): LogisticFit {
  const n = rows.length;
  const positives = labels.reduce<number>((sum, label) => sum + label, 0);
  if (n === 0 || positives === 0 || positives === n) {
    throw new Error(`logistic regression needs both classes (${positives} positive of ${n})`);
  }
  const classWeight = options.balanced ? [n / (2 * (n - positives)), n / (2 * positives)] : [1, 1];
  const sampleWeight = Float64Array.from(labels, (label) => options.c * (classWeight[label] as number));
  // The rows flattened once (compressed sparse rows): the inner loops then read typed arrays only,
  // about three times faster than following each row's own arrays.
  const offsets = new Int32Array(n + 1);
  rows.forEach((row, i) => {
    offsets[i + 1] = (offsets[i] as number) + row.indices.length;
  });
  const columns = new Int32Array(offsets[n] as number);
  const entries = new Float64Array(offsets[n] as number);
  rows.forEach((row, i) => {
    columns.set(row.indices, offsets[i]);
    entries.set(row.values, offsets[i]);
  });
  const size = features + 1; // the intercept is the last coordinate
  const maxIterations = options.maxIterations ?? 300;
  const tolerance = options.tolerance ?? 1e-3;

  /** The objective at `point`, its gradient written into `gradient`. */
  const evaluate = (point: Float64Array, gradient: Float64Array): number => {
    let loss = 0;
    gradient.fill(0);
    for (let j = 0; j < features; j++) {
      const value = point[j] as number;
      loss += (value * value) / 2;
      gradient[j] = value;
    }
    const intercept = point[features] as number;
    for (let i = 0; i < n; i++) {
      const from = offsets[i] as number;
      const to = offsets[i + 1] as number;
      let margin = intercept;
      for (let k = from; k < to; k++)
        margin += (entries[k] as number) * (point[columns[k] as number] as number);
      const weight = sampleWeight[i] as number;
      const label = labels[i] as number;
      loss += weight * (label === 1 ? softplus(-margin) : softplus(margin));
      const residual = weight * (sigmoid(margin) - label);
      for (let k = from; k < to; k++) {
        const j = columns[k] as number;
        gradient[j] = (gradient[j] as number) + residual * (entries[k] as number);
      }
      gradient[features] = (gradient[features] as number) + residual;
    }
    return loss;
  };

  let point = new Float64Array(size);
  if (options.start) {
    point.set(options.start.weights.subarray(0, features));
    point[features] = options.start.intercept;
  }
  let gradient = new Float64Array(size);
  let loss = evaluate(point, gradient);
  const steps: Float64Array[] = [];
  const changes: Float64Array[] = [];
  const rhos: number[] = [];
  const alphas = new Float64Array(HISTORY);
  const direction = new Float64Array(size);
  let candidate = new Float64Array(size);
  let candidateGradient = new Float64Array(size);
  let iterations = 0;

  while (iterations < maxIterations && maxAbs(gradient) > tolerance) {
    iterations++;
    // Two-loop recursion: direction = -H * gradient.
    direction.set(gradient);
    for (let m = steps.length - 1; m >= 0; m--) {
      const alpha = (rhos[m] as number) * dotDense(steps[m] as Float64Array, direction);
      alphas[m] = alpha;
      axpy(-alpha, changes[m] as Float64Array, direction);
    }
    if (steps.length > 0) {
      const last = changes.length - 1;
      const y = changes[last] as Float64Array;
      scale(direction, dotDense(steps[last] as Float64Array, y) / dotDense(y, y));
    }
    for (let m = 0; m < steps.length; m++) {
      const beta = (rhos[m] as number) * dotDense(changes[m] as Float64Array, direction);
      axpy((alphas[m] as number) - beta, steps[m] as Float64Array, direction);
    }
    scale(direction, -1);
    let slope = dotDense(gradient, direction);
    if (slope >= 0) {
      // Not a descent direction (curvature lost to rounding): restart from steepest descent.
      direction.set(gradient);
      scale(direction, -1);
      slope = -dotDense(gradient, gradient);
      steps.length = 0;
      changes.length = 0;
      rhos.length = 0;
    }
    // Backtracking (Armijo) line search; the first step of L-BFGS is usually accepted.
    let step = steps.length === 0 ? Math.min(1, 1 / Math.sqrt(-slope)) : 1;
    let nextLoss = Number.POSITIVE_INFINITY;
    for (let tries = 0; tries < 40; tries++) {
      for (let j = 0; j < size; j++) candidate[j] = (point[j] as number) + step * (direction[j] as number);
      nextLoss = evaluate(candidate, candidateGradient);
      if (nextLoss <= loss + 1e-4 * step * slope) break;
      step /= 2;
    }
    if (!(nextLoss < loss)) break; // no progress is possible at this precision
    // With the history full, the oldest pair's arrays are written over: no allocation per step.
    const full = steps.length === HISTORY;
    const s = full ? (steps.shift() as Float64Array) : new Float64Array(size);
    const y = full ? (changes.shift() as Float64Array) : new Float64Array(size);
    if (full) rhos.shift();
    for (let j = 0; j < size; j++) {
      s[j] = (candidate[j] as number) - (point[j] as number);
      y[j] = (candidateGradient[j] as number) - (gradient[j] as number);
    }
    const curvature = dotDense(s, y);
    if (curvature > 1e-12) {
      steps.push(s);
      changes.push(y);
      rhos.push(1 / curvature);
    }
    // The accepted point becomes the current one; the old one is the next trial's scratch space.
    [point, candidate] = [candidate, point];
    [gradient, candidateGradient] = [candidateGradient, gradient];
    loss = nextLoss;
  }
  return { intercept: point[features] as number, weights: point.subarray(0, features), iterations };
}

function maxAbs(vector: Float64Array): number {
  let max = 0;
  for (let j = 0; j < vector.length; j++) {
    const value = Math.abs(vector[j] as number);
    if (value > max) max = value;
  }
  return max;
}

function dotDense(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let j = 0; j < a.length; j++) sum += (a[j] as number) * (b[j] as number);
  return sum;
}

function axpy(factor: number, x: Float64Array, into: Float64Array): void {
  for (let j = 0; j < into.length; j++) into[j] = (into[j] as number) + factor * (x[j] as number);
}

function scale(vector: Float64Array, factor: number): void {
  for (let j = 0; j < vector.length; j++) vector[j] = (vector[j] as number) * factor;
}

/** The fitted probability of one row. */
export function predictLogistic(fit: Pick<LogisticFit, "intercept" | "weights">, row: SparseRow): number {
  return sigmoid(fit.intercept + dot(row, fit.weights));
}

// Word vectors learned from unlabelled announcement days: positive pointwise mutual information of words
// that occur near each other in titles and abstracts, reduced to a few dimensions by a seeded randomized
// SVD. A paper's vector is the idf-weighted mean of its words' vectors. They let the ranker read that
// "clinical" and "patient" sit together even where the labelled days hold one of them only.
// Pure and deterministic: the same documents, in the same order, give the same vectors to the byte.

/** How the vectors are learned. */
export interface EmbeddingSettings {
  /** The most frequent words (by documents holding them) that get a vector. */
  words: number;
  /** Dimensions of each vector. */
  dims: number;
  /** Words at most this far apart count as co-occurring, weighted by 1 / distance. */
  window: number;
  /** Seed of the random projection; the same seed gives the same vectors. */
  seed: number;
}

export const DEFAULT_EMBEDDING_SETTINGS: EmbeddingSettings = { words: 4000, dims: 64, window: 5, seed: 50 };

/** Learned vectors: one unit-length row of `dims` numbers per word, and the word's idf in the corpus. */
export interface WordVectors {
  words: string[];
  idf: number[];
  dims: number;
  /** `words.length * dims` numbers, row by row. */
  vectors: Float32Array;
}

/** A small seeded generator (mulberry32): the projection must be random-looking and repeatable. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Counts word co-occurrences document by document, so a large corpus is read once and never held:
 * `add` each document's words (in order), then `learn` the vectors. `vocabulary` is the words that get
 * vectors, chosen beforehand (for example by `frequentWords`).
 */
export class CooccurrenceCounter {
  readonly #index: Map<string, number>;
  readonly #size: number;
  readonly #counts: Float64Array;
  readonly #df: Float64Array;
  #documents = 0;

  readonly vocabulary: readonly string[];
  readonly settings: EmbeddingSettings;

  constructor(vocabulary: readonly string[], settings: EmbeddingSettings) {
    this.vocabulary = vocabulary;
    this.settings = settings;
    this.#index = new Map(vocabulary.map((word, i) => [word, i]));
    this.#size = vocabulary.length;
    this.#counts = new Float64Array(this.#size * this.#size);
    this.#df = new Float64Array(this.#size);
  }

  add(words: readonly string[]): void {
    this.#documents++;
    const ids: number[] = [];
    for (const word of words) ids.push(this.#index.get(word) ?? -1);
    const seen = new Set<number>();
    const size = this.#size;
    for (let i = 0; i < ids.length; i++) {
      const a = ids[i] as number;
      if (a < 0) continue;
      seen.add(a);
      const last = Math.min(ids.length - 1, i + this.settings.window);
      for (let j = i + 1; j <= last; j++) {
        const b = ids[j] as number;
        if (b < 0 || b === a) continue;
        const weight = 1 / (j - i);
        this.#counts[a * size + b] = (this.#counts[a * size + b] as number) + weight;
        this.#counts[b * size + a] = (this.#counts[b * size + a] as number) + weight;
      }
    }
    for (const a of seen) this.#df[a] = (this.#df[a] as number) + 1;
  }

  get documents(): number {
    return this.#documents;
  }

  /** The word vectors: PPMI (context counts smoothed to the power 0.75), then a rank-`dims` SVD. */
  learn(): WordVectors {
    const size = this.#size;
    const counts = this.#counts;
    const rowSums = new Float64Array(size);
    let total = 0;
    for (let a = 0; a < size; a++) {
      let sum = 0;
      for (let b = 0; b < size; b++) sum += counts[a * size + b] as number;
      rowSums[a] = sum;
      total += sum;
    }
    const smoothed = Float64Array.from(rowSums, (sum) => sum ** 0.75);
    const smoothedTotal = smoothed.reduce((sum, value) => sum + value, 0);
    const ppmi = new Float64Array(size * size);
    for (let a = 0; a < size; a++) {
      const pa = (rowSums[a] as number) / total;
      if (pa === 0) continue;
      for (let b = 0; b < size; b++) {
        const count = counts[a * size + b] as number;
        if (count === 0) continue;
        const pmi = Math.log(count / total / (pa * ((smoothed[b] as number) / smoothedTotal)));
        if (pmi > 0) ppmi[a * size + b] = pmi;
      }
    }
    // The context smoothing makes PPMI slightly asymmetric; its symmetric part keeps the eigen-solver exact.
    for (let a = 0; a < size; a++) {
      for (let b = a + 1; b < size; b++) {
        const mean = ((ppmi[a * size + b] as number) + (ppmi[b * size + a] as number)) / 2;
        ppmi[a * size + b] = mean;
        ppmi[b * size + a] = mean;
      }
    }
    const { vectors: basis, values } = topEigenvectors(ppmi, size, this.settings.dims, this.settings.seed);
    const dims = this.settings.dims;
    const vectors = new Float32Array(size * dims);
    for (let a = 0; a < size; a++) {
      let norm = 0;
      for (let d = 0; d < dims; d++) {
        const value = (basis[a * dims + d] as number) * Math.sqrt(Math.abs(values[d] as number));
        vectors[a * dims + d] = value;
        norm += value * value;
      }
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dims; d++) vectors[a * dims + d] = (vectors[a * dims + d] as number) / norm;
    }
    const idf = Array.from(this.#df, (df) => Math.log((1 + this.#documents) / (1 + df)) + 1);
    return { words: [...this.vocabulary], idf, dims, vectors };
  }
}

/** The `count` words held by the most documents (ties in code-unit order), among those in `min` or more. */
export function frequentWords(df: ReadonlyMap<string, number>, count: number, min = 1): string[] {
  return [...df]
    .filter(([, n]) => n >= min)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, count)
    .map(([word]) => word);
}

/** y = M x for a dense symmetric `size` x `size` matrix and a block of `k` columns (row-major). */
function multiply(
  matrix: Float64Array,
  size: number,
  block: Float64Array,
  k: number,
): Float64Array<ArrayBuffer> {
  const out = new Float64Array(size * k);
  for (let a = 0; a < size; a++) {
    const row = a * size;
    const target = a * k;
    for (let b = 0; b < size; b++) {
      const value = matrix[row + b] as number;
      if (value === 0) continue;
      const source = b * k;
      for (let c = 0; c < k; c++)
        out[target + c] = (out[target + c] as number) + value * (block[source + c] as number);
    }
  }
  return out;
}

/** Orthonormalises the `k` columns of a row-major block in place (modified Gram-Schmidt, twice). */
function orthonormalise(block: Float64Array, size: number, k: number): void {
  for (let pass = 0; pass < 2; pass++) {
    for (let c = 0; c < k; c++) {
      for (let p = 0; p < c; p++) {
        let dot = 0;
        for (let a = 0; a < size; a++) dot += (block[a * k + c] as number) * (block[a * k + p] as number);
        for (let a = 0; a < size; a++)
          block[a * k + c] = (block[a * k + c] as number) - dot * (block[a * k + p] as number);
      }
      let norm = 0;
      for (let a = 0; a < size; a++) norm += (block[a * k + c] as number) ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let a = 0; a < size; a++) block[a * k + c] = (block[a * k + c] as number) / norm;
    }
  }
}

/** Eigen-decomposition of a small symmetric matrix by cyclic Jacobi rotations: values and column vectors. */
function jacobi(input: Float64Array, k: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(input);
  const v = new Float64Array(k * k);
  for (let i = 0; i < k; i++) v[i * k + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < k; p++) for (let q = p + 1; q < k; q++) off += (a[p * k + q] as number) ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < k; p++) {
      for (let q = p + 1; q < k; q++) {
        const apq = a[p * k + q] as number;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = ((a[q * k + q] as number) - (a[p * k + p] as number)) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const cos = 1 / Math.sqrt(t * t + 1);
        const sin = t * cos;
        for (let r = 0; r < k; r++) {
          const arp = a[r * k + p] as number;
          const arq = a[r * k + q] as number;
          a[r * k + p] = cos * arp - sin * arq;
          a[r * k + q] = sin * arp + cos * arq;
        }
        for (let r = 0; r < k; r++) {
          const apr = a[p * k + r] as number;
          const aqr = a[q * k + r] as number;
          a[p * k + r] = cos * apr - sin * aqr;
          a[q * k + r] = sin * apr + cos * aqr;
        }
        for (let r = 0; r < k; r++) {
          const vrp = v[r * k + p] as number;
          const vrq = v[r * k + q] as number;
          v[r * k + p] = cos * vrp - sin * vrq;
          v[r * k + q] = sin * vrp + cos * vrq;
        }
      }
    }
  }
  return { values: Float64Array.from({ length: k }, (_, i) => a[i * k + i] as number), vectors: v };
}

/**
 * The `dims` eigenvectors of largest |eigenvalue| of a symmetric matrix, by seeded randomized subspace
 * iteration (Halko, Martinsson and Tropp) with ten extra columns and four power steps. Each vector's sign
 * is fixed (its largest entry positive), so the result does not depend on rounding in the solver.
 */
export function topEigenvectors(
  matrix: Float64Array,
  size: number,
  dims: number,
  seed: number,
): { vectors: Float64Array; values: Float64Array } {
  const k = Math.min(size, dims + 10);
  const random = seeded(seed);
  let block: Float64Array = Float64Array.from({ length: size * k }, () => random() * 2 - 1);
  orthonormalise(block, size, k);
  for (let step = 0; step < 4; step++) {
    block = multiply(matrix, size, block, k);
    orthonormalise(block, size, k);
  }
  const product = multiply(matrix, size, block, k);
  const small = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      let dot = 0;
      for (let a = 0; a < size; a++) dot += (block[a * k + i] as number) * (product[a * k + j] as number);
      small[i * k + j] = dot;
    }
  }
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) {
      const mean = ((small[i * k + j] as number) + (small[j * k + i] as number)) / 2;
      small[i * k + j] = mean;
      small[j * k + i] = mean;
    }
  }
  const eigen = jacobi(small, k);
  const order = [...eigen.values.keys()]
    .sort((i, j) => Math.abs(eigen.values[j] as number) - Math.abs(eigen.values[i] as number) || i - j)
    .slice(0, Math.min(dims, k));
  const vectors = new Float64Array(size * dims);
  const values = new Float64Array(dims);
  order.forEach((column, d) => {
    values[d] = eigen.values[column] as number;
    let largest = 0;
    for (let a = 0; a < size; a++) {
      let value = 0;
      for (let i = 0; i < k; i++)
        value += (block[a * k + i] as number) * (eigen.vectors[i * k + column] as number);
      vectors[a * dims + d] = value;
      if (Math.abs(value) > Math.abs(largest)) largest = value;
    }
    if (largest < 0)
      for (let a = 0; a < size; a++) vectors[a * dims + d] = -(vectors[a * dims + d] as number);
  });
  return { vectors, values };
}

/** A lookup of word vectors, ready to embed papers. */
export interface CompiledVectors {
  index: ReadonlyMap<string, number>;
  vectors: WordVectors;
}

export const compileVectors = (vectors: WordVectors): CompiledVectors => ({
  index: new Map(vectors.words.map((word, i) => [word, i])),
  vectors,
});

/**
 * A text's vector: the idf-weighted mean of its words' vectors, scaled to unit length; zeros when none
 * of its words has a vector.
 */
export function documentVector(compiled: CompiledVectors, words: readonly string[]): Float64Array {
  const { dims, vectors, idf } = compiled.vectors;
  const out = new Float64Array(dims);
  for (const word of words) {
    const i = compiled.index.get(word);
    if (i === undefined) continue;
    const weight = idf[i] as number;
    for (let d = 0; d < dims; d++) out[d] = (out[d] as number) + weight * (vectors[i * dims + d] as number);
  }
  let norm = 0;
  for (let d = 0; d < dims; d++) norm += (out[d] as number) ** 2;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let d = 0; d < dims; d++) out[d] = (out[d] as number) / norm;
  return out;
}

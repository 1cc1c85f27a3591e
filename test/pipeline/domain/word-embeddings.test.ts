import { describe, expect, it } from "vitest";
import {
  CooccurrenceCounter,
  compileVectors,
  documentVector,
  frequentWords,
  topEigenvectors,
  type WordVectors,
} from "../../../pipeline/domain/word-embeddings.ts";
import {
  quantise,
  vectorsOfFile,
  WordVectorsFileSchema,
} from "../../../pipeline/domain/word-vectors-file.ts";

/** Two topics that never share a sentence: clinical agents and image segmentation. */
const CLINICAL = ["clinical", "patient", "hospital", "diagnosis", "physician"];
const VISION = ["image", "pixel", "segmentation", "camera", "mask"];

function corpus(): string[][] {
  const documents: string[][] = [];
  for (let i = 0; i < 60; i++) {
    const topic = i % 2 === 0 ? CLINICAL : VISION;
    // Each document: its topic's words in a rotated order, so every pair meets at several distances.
    documents.push([...topic.slice(i % 5), ...topic.slice(0, i % 5), "model", "method"]);
  }
  return documents;
}

// Two dimensions: one per topic, the rest of the spectrum being the shared words' noise.
const settings = { words: 12, dims: 2, window: 3, seed: 7 };

function learn(): WordVectors {
  const documents = corpus();
  const df = new Map<string, number>();
  for (const words of documents) for (const word of new Set(words)) df.set(word, (df.get(word) ?? 0) + 1);
  const counter = new CooccurrenceCounter(frequentWords(df, settings.words), settings);
  for (const words of documents) counter.add(words);
  expect(counter.documents).toBe(60);
  return counter.learn();
}

const cosine = (vectors: WordVectors, a: string, b: string) => {
  const [i, j] = [vectors.words.indexOf(a), vectors.words.indexOf(b)];
  let sum = 0;
  for (let d = 0; d < vectors.dims; d++)
    sum +=
      (vectors.vectors[i * vectors.dims + d] as number) * (vectors.vectors[j * vectors.dims + d] as number);
  return sum;
};

describe("word vectors from co-occurrence (PPMI and a seeded randomized SVD)", () => {
  it("places words of one topic near each other and far from the other topic's", () => {
    const vectors = learn();
    expect(vectors.words).toHaveLength(12);
    expect(cosine(vectors, "clinical", "patient")).toBeGreaterThan(0.95);
    expect(cosine(vectors, "image", "mask")).toBeGreaterThan(0.95);
    expect(Math.abs(cosine(vectors, "clinical", "image"))).toBeLessThan(0.05);
    expect(Math.abs(cosine(vectors, "patient", "pixel"))).toBeLessThan(0.05);
  });

  it("gives the same vectors to the byte for the same corpus and seed", () => {
    expect(Buffer.from(learn().vectors.buffer)).toEqual(Buffer.from(learn().vectors.buffer));
  });

  it("ranks the most frequent words first, ties in code-unit order, and drops rare ones", () => {
    const df = new Map([
      ["b", 3],
      ["a", 3],
      ["c", 5],
      ["rare", 1],
    ]);
    expect(frequentWords(df, 10, 2)).toEqual(["c", "a", "b"]);
    expect(frequentWords(df, 2)).toEqual(["c", "a"]);
  });

  it("finds the leading eigenvectors of a symmetric matrix, signs fixed", () => {
    // diag(5, -3, 1) rotated is still diagonal here: the eigenvectors are the axes.
    const matrix = Float64Array.from([5, 0, 0, 0, -3, 0, 0, 0, 1]);
    const { vectors, values } = topEigenvectors(matrix, 3, 2, 1);
    expect(Array.from(values, (v) => Number(v.toFixed(6)))).toEqual([5, -3]);
    expect(Array.from(vectors, (v) => Number(v.toFixed(6)) + 0)).toEqual([1, 0, 0, 1, 0, 0]);
  });
});

describe("paper vectors and the quantised file", () => {
  it("averages a text's known words by idf into a unit vector; no known word gives zeros", () => {
    const compiled = compileVectors(learn());
    const clinical = documentVector(compiled, ["patient", "diagnosis", "unknownword"]);
    const norm = Math.hypot(...clinical);
    expect(norm).toBeCloseTo(1, 6);
    const vision = documentVector(compiled, ["pixel", "camera"]);
    let dot = 0;
    for (let d = 0; d < clinical.length; d++) dot += (clinical[d] as number) * (vision[d] as number);
    expect(dot).toBeLessThan(0.2);
    expect(Array.from(documentVector(compiled, ["nothing", "known"]))).toEqual([0, 0]);
  });

  it("writes one signed byte per number and reads back within a step of 1/127", () => {
    const vectors = learn();
    const card = { name: "test", commit: "", files: 1, papers: 60, left_out_days: [], left_out_papers: 0 };
    const file = quantise(vectors, card, settings.seed, settings.window);
    expect(WordVectorsFileSchema.safeParse(file).success).toBe(true);
    expect(atob(file.vectors)).toHaveLength(12 * 2);
    const read = vectorsOfFile(file);
    read.vectors.forEach((value, i) => {
      expect(Math.abs(value - (vectors.vectors[i] as number))).toBeLessThanOrEqual(0.5 / 127 + 1e-6);
    });
  });

  it("refuses a file whose vectors do not fit its words and dimensions", () => {
    const file = quantise(
      learn(),
      { name: "t", commit: "", files: 1, papers: 1, left_out_days: [], left_out_papers: 0 },
      7,
      3,
    );
    const short = { ...file, vectors: btoa("abc") };
    const parsed = WordVectorsFileSchema.safeParse(short);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe("3 numbers for 12 words of 2 dimensions");
    expect(WordVectorsFileSchema.safeParse({ ...file, idf: [1] }).success).toBe(false);
  });
});

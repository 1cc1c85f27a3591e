// The word vectors as `picks embed` writes them and a relevance model carries them: the words, their idf
// in the corpus, the vectors quantised to one signed byte per number, and a card saying which corpus
// they were learned from. Training reads the quantised vectors back, so the ranker scores with exactly
// the numbers the heads were fitted on.

import { z } from "zod";
import type { WordVectors } from "./word-embeddings.ts";

/** Each number of a unit-length vector lies in [-1, 1]: 127 steps a side. */
const STEPS = 127;

export const CorpusCardSchema = z.object({
  name: z.string().min(1).describe("where the listings came from, e.g. a repository and branch"),
  commit: z.string().describe("the corpus's revision, when it has one (empty when unknown)"),
  files: z.int().min(0).describe("listing files read"),
  papers: z.int().min(0).describe("distinct papers the vectors were learned from"),
  left_out_days: z
    .array(z.string())
    .describe("days whose listings were left out (the labelled days), so figures on them stay honest"),
  left_out_papers: z.int().min(0).describe("papers left out because a left-out listing holds them"),
});
export type CorpusCard = z.infer<typeof CorpusCardSchema>;

export const WordVectorsFileSchema = z
  .object({
    corpus: CorpusCardSchema,
    settings: z.object({
      words: z.int().min(1),
      dims: z.int().min(1).max(512),
      window: z.int().min(1),
      seed: z.int(),
    }),
    words: z.array(z.string()),
    idf: z.array(z.number().positive()),
    vectors: z.base64().describe("words x dims signed bytes, row by row, each number times 127"),
  })
  .superRefine((file, context) => {
    if (file.idf.length !== file.words.length) {
      context.addIssue({ code: "custom", path: ["idf"], message: "one idf per word" });
    }
    const bytes = Math.floor((file.vectors.replace(/=+$/, "").length * 3) / 4);
    if (bytes !== file.words.length * file.settings.dims) {
      context.addIssue({
        code: "custom",
        path: ["vectors"],
        message: `${bytes} numbers for ${file.words.length} words of ${file.settings.dims} dimensions`,
      });
    }
  });
export type WordVectorsFile = z.infer<typeof WordVectorsFileSchema>;

/** Vectors as they are written: one signed byte per number. */
export function quantise(
  vectors: WordVectors,
  corpus: CorpusCard,
  seed: number,
  window: number,
): WordVectorsFile {
  const bytes = new Uint8Array(vectors.vectors.length);
  vectors.vectors.forEach((value, i) => {
    bytes[i] = Math.max(-STEPS, Math.min(STEPS, Math.round(value * STEPS))) & 0xff;
  });
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return {
    corpus,
    settings: { words: vectors.words.length, dims: vectors.dims, window, seed },
    words: vectors.words,
    idf: vectors.idf.map((value) => Number(value.toFixed(4))),
    vectors: btoa(binary),
  };
}

/** The vectors a file holds, as training and ranking read them. */
export function vectorsOfFile(
  file: Pick<WordVectorsFile, "words" | "idf" | "settings" | "vectors">,
): WordVectors {
  const binary = atob(file.vectors);
  const vectors = new Float32Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    const byte = binary.charCodeAt(i);
    vectors[i] = (byte > 127 ? byte - 256 : byte) / STEPS;
  }
  return { words: file.words, idf: file.idf, dims: file.settings.dims, vectors };
}

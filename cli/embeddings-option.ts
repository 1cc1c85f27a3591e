import {
  DEFAULT_TRAIN_SETTINGS,
  embeddingOf,
  type TrainSettings,
} from "../pipeline/domain/relevance-training.ts";
import { EvalInputError } from "../pipeline/labels-file.ts";
import { readWordVectorsFile } from "../pipeline/word-vectors-corpus.ts";
import { UsageError } from "./output.ts";

export const EMBEDDINGS_HELP =
  "word vectors from `picks embed` (or a model file that carries them): each paper's vector becomes a feature";

/** The training settings, with the word vectors of `--embeddings` when given. */
export async function trainSettingsOf(path: string | undefined): Promise<Omit<TrainSettings, "version">> {
  if (path === undefined) return DEFAULT_TRAIN_SETTINGS;
  try {
    return { ...DEFAULT_TRAIN_SETTINGS, embedding: embeddingOf(await readWordVectorsFile(path)) };
  } catch (error) {
    if (error instanceof EvalInputError) throw new UsageError(error.message);
    throw error;
  }
}

import { afterAll, beforeAll } from "vitest";
import type { CompiledRelevance } from "../../pipeline/domain/relevance-model.ts";
import { loadRelevanceModel, newestModelPath } from "../../pipeline/relevance-file.ts";
import { createSnapshotCache, type SnapshotCache } from "../../server/snapshots/snapshot-cache.ts";
import { publishRankedSampleDays } from "./published.ts";

export interface RankedSample {
  snapshots: SnapshotCache;
  relevance: CompiledRelevance;
}

/**
 * The ranked sample days' snapshots and the shipped relevance model, what the reader tests rank with:
 * made before the file's tests and closed after them. Read its fields inside a test or hook.
 */
export function useRankedSample(): RankedSample {
  const sample = {} as RankedSample;
  beforeAll(async () => {
    sample.snapshots = await createSnapshotCache({ publicDir: (await publishRankedSampleDays()).publicDir });
    sample.relevance = await loadRelevanceModel(await newestModelPath());
  });
  afterAll(() => sample.snapshots.close());
  return sample;
}

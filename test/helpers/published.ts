import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { curate } from "../../pipeline/curate.ts";
import type { CompiledRelevance } from "../../pipeline/domain/relevance-model.ts";
import { DEFAULT_SELECTION, RANKED_SELECTION } from "../../pipeline/domain/selection.ts";
import { loadRelevanceModel, newestModelPath } from "../../pipeline/relevance-file.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { createFileSource } from "../../pipeline/sources/file-source.ts";
import { createSampleSource, sampleDays } from "../../pipeline/sources/sample-source.ts";
import type { CandidateSource } from "../../pipeline/sources/source.ts";
import { LISTING_250, LISTING_PARTIAL } from "./fixtures.ts";

/** Curates each day from its source into a new temporary site, at a fixed instant. */
async function publishDays(
  prefix: string,
  days: ReadonlyArray<readonly [date: string, source: CandidateSource]>,
  ranker?: CompiledRelevance,
): Promise<{ publicDir: string; runsDir: string }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const publicDir = join(root, "public");
  const runsDir = join(root, "runs");
  const rubric = await loadRubric();
  for (const [date, source] of days) {
    await curate({
      date,
      source,
      outDir: publicDir,
      runsDir,
      rubric,
      selection: ranker ? RANKED_SELECTION : DEFAULT_SELECTION,
      ...(ranker ? { ranker } : {}),
      now: () => new Date("2026-11-21T06:00:00Z"),
    });
  }
  return { publicDir, runsDir };
}

/** A temporary site with two real days published from the recorded listings. */
export function publishFixtureDays(): Promise<{ publicDir: string; runsDir: string }> {
  return publishDays("picks-site-", [
    ["2026-06-12", createFileSource(LISTING_250)],
    ["2026-06-25", createFileSource(LISTING_PARTIAL)],
  ]);
}

/** A temporary site with the three embedded sample days published. */
export async function publishSampleDays(): Promise<{ publicDir: string; runsDir: string }> {
  const source = createSampleSource();
  return publishDays(
    "picks-sample-",
    (await sampleDays()).map((date) => [date, source] as const),
  );
}

/**
 * The three sample days as `picks curate` publishes them by default: ranked by the newest relevance
 * model in data/models/, so every pick carries its must-read likelihood.
 */
export async function publishRankedSampleDays(): Promise<{ publicDir: string; runsDir: string }> {
  const source = createSampleSource();
  const ranker = await loadRelevanceModel(await newestModelPath());
  return publishDays(
    "picks-ranked-",
    (await sampleDays()).map((date) => [date, source] as const),
    ranker,
  );
}

/** `picks curate` of `date` from `source` (a --source value), into a site and its run records. */
export const curateArgs = (source: string, publicDir: string, runsDir: string, date: string): string[] => [
  "curate",
  "--source",
  source,
  "--date",
  date,
  "--no-citations",
  "--out",
  publicDir,
  "--runs",
  runsDir,
];

/** `picks curate` of the recorded 250-paper listing as `date`, into a site and its run records. */
export const curateListingArgs = (publicDir: string, runsDir: string, date: string): string[] =>
  curateArgs(`file:${LISTING_250}`, publicDir, runsDir, date);

/** `picks curate` of the offline sample's `date`, into a site and its run records. */
export const curateSampleArgs = (publicDir: string, runsDir: string, date: string): string[] =>
  curateArgs("sample", publicDir, runsDir, date);

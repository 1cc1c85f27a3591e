import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { curate } from "../../pipeline/curate.ts";
import { DEFAULT_SELECTION } from "../../pipeline/domain/selection.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { createFileSource } from "../../pipeline/sources/file-source.ts";
import { createSampleSource, sampleDays } from "../../pipeline/sources/sample-source.ts";
import { LISTING_250, LISTING_PARTIAL } from "./fixtures.ts";

/** A temporary site with two real days published from the recorded listings. */
export async function publishFixtureDays(): Promise<{ publicDir: string; runsDir: string }> {
  const root = await mkdtemp(join(tmpdir(), "picks-site-"));
  const publicDir = join(root, "public");
  const runsDir = join(root, "runs");
  const rubric = await loadRubric();
  for (const [date, file] of [
    ["2026-06-12", LISTING_250],
    ["2026-06-25", LISTING_PARTIAL],
  ] as const) {
    await curate({
      date,
      source: createFileSource(file),
      outDir: publicDir,
      runsDir,
      rubric,
      selection: DEFAULT_SELECTION,
      now: () => new Date("2026-11-21T06:00:00Z"),
    });
  }
  return { publicDir, runsDir };
}

/** A temporary site with the three embedded sample days published. */
export async function publishSampleDays(): Promise<{ publicDir: string; runsDir: string }> {
  const root = await mkdtemp(join(tmpdir(), "picks-sample-"));
  const publicDir = join(root, "public");
  const runsDir = join(root, "runs");
  const rubric = await loadRubric();
  const source = createSampleSource();
  for (const date of await sampleDays()) {
    await curate({
      date,
      source,
      outDir: publicDir,
      runsDir,
      rubric,
      selection: DEFAULT_SELECTION,
      now: () => new Date("2026-11-21T06:00:00Z"),
    });
  }
  return { publicDir, runsDir };
}

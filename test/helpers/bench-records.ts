import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { curate } from "../../pipeline/curate.ts";
import type { RunRecord } from "../../pipeline/domain/run-record.ts";
import { DEFAULT_SELECTION } from "../../pipeline/domain/selection.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { createSampleSource, sampleDays } from "../../pipeline/sources/sample-source.ts";

/** The run records of the three sample days, curated into a temporary site. */
export async function curateSampleRecords(): Promise<RunRecord[]> {
  const root = await mkdtemp(join(tmpdir(), "picks-bench-records-"));
  const rubric = await loadRubric();
  const source = createSampleSource();
  const records: RunRecord[] = [];
  for (const date of await sampleDays()) {
    const result = await curate({
      date,
      source,
      outDir: join(root, "public"),
      runsDir: join(root, "runs"),
      rubric,
      selection: DEFAULT_SELECTION,
      now: () => new Date(`${date}T06:00:00Z`),
    });
    records.push(result.record);
  }
  return records;
}

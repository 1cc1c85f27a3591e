import { RELEASED_DAYS } from "./curation.ts";
import { type Finished, runPicks } from "./processes.ts";
import { curateArgs } from "./published.ts";

// `picks train` on a test's own labels files, as version relevance-2026.01.1 written to `out`; `extra` adds flags.
export function trainTestModel(labelsFiles: string[], out: string, extra: string[] = []): Promise<Finished> {
  return runPicks([
    "train",
    "--labels",
    ...labelsFiles,
    "--no-operator-labels",
    "--model-version",
    "relevance-2026.01.1",
    "--out",
    out,
    ...extra,
  ]);
}

// `picks curate` of the first released day from its listing file, offline, into `site` with its run records in `runs`.
export function curateReleasedDay(site: string, runs: string, extra: string[] = []): Promise<Finished> {
  const day = RELEASED_DAYS[0];
  return runPicks([...curateArgs(`file:${day.listing}`, site, runs, day.date), ...extra]);
}

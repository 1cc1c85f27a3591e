import { curate } from "../../../pipeline/curate.ts";
import { DEFAULT_SELECTION } from "../../../pipeline/domain/selection.ts";
import { loadRubric } from "../../../pipeline/rubric-file.ts";
import { createFileSource } from "../../../pipeline/sources/file-source.ts";
import { LISTING_250 } from "../../helpers/fixtures.ts";

/** What `picks curate --date DATE --source file:LISTING_250` does, into the given folders. */
export async function curateDay(publicDir: string, runsDir: string, date: string) {
  return curate({
    date,
    source: createFileSource(LISTING_250),
    outDir: publicDir,
    runsDir,
    rubric: await loadRubric(),
    selection: DEFAULT_SELECTION,
    now: () => new Date(`${date}T06:00:00Z`),
  });
}

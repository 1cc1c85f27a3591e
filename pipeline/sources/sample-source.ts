import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { collectCandidates } from "../domain/candidate-rows.ts";
import { projectPath } from "../project-root.ts";
import { parseListing } from "./file-source.ts";
import { type CandidateSource, SourceError } from "./source.ts";

export const SAMPLE_DIR = projectPath("data", "sample");

/** The announcement days the embedded sample holds, oldest first. */
export async function sampleDays(dir = SAMPLE_DIR): Promise<string[]> {
  const names = await readdir(dir);
  return names
    .filter((name) => /^\d{4}-\d{2}-\d{2}\.json$/.test(name))
    .map((name) => name.slice(0, 10))
    .sort();
}

/** The embedded sample: real papers grouped into demonstration days, for offline use. */
export function createSampleSource(dir = SAMPLE_DIR): CandidateSource {
  return {
    name: "sample",
    async load(date) {
      const days = await sampleDays(dir);
      if (!days.includes(date)) {
        throw new SourceError(`the embedded sample has no day ${date}; it holds ${days.join(", ")}`);
      }
      const file = join(dir, `${date}.json`);
      const rows = parseListing(await readFile(file, "utf8"), file);
      return collectCandidates(rows, { source: "sample", sample: true });
    },
  };
}

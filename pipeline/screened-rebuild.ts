import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Candidate } from "./domain/candidate.ts";
import { collectCandidates } from "./domain/candidate-rows.ts";
import { RunRecordSchema } from "./domain/run-record.ts";
import { buildScreenedDay } from "./domain/screened.ts";
import { publishFiles } from "./publish.ts";
import { parseListing } from "./sources/file-source.ts";

// `picks screened --rebuild`: the screened files of days published before they existed, made from
// the run records the operator kept (data/runs/DATE.json and the listing beside it). The record holds
// every decision and its reason; nothing is scored or selected again.

export interface RebuildOptions {
  /** The static site root: its published days are the ones rebuilt, screened files go to `{outDir}/v1/screened/`. */
  outDir: string;
  runsDir: string;
  from?: string;
  to?: string;
}

export interface RebuildResult {
  /** The published days in the range, oldest first. */
  days: string[];
  written: string[];
  /** Days with a run record but no listing beside it: written with titles only. */
  withoutTexts: string[];
  /** Days with no run record: no screened file can be made for them. */
  missing: string[];
}

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.json$/;

async function publishedDays(outDir: string): Promise<string[]> {
  const names = await readdir(join(outDir, "v1", "daily")).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw error;
  });
  return names.flatMap((name) => DAY_FILE.exec(name)?.[1] ?? []).sort();
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Writes the screened file of every published day in the range that has a run record, each checked
 * against its schema before it is written; a record that is not one stops the run before any write.
 */
export async function rebuildScreened(options: RebuildOptions): Promise<RebuildResult> {
  const days = (await publishedDays(options.outDir)).filter(
    (day) =>
      (options.from === undefined || day >= options.from) && (options.to === undefined || day <= options.to),
  );
  const planned = [];
  const missing: string[] = [];
  const withoutTexts: string[] = [];
  for (const day of days) {
    const recordPath = join(options.runsDir, `${day}.json`);
    const text = await readText(recordPath);
    if (text === undefined) {
      missing.push(day);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`${recordPath} is not valid JSON; nothing was written`);
    }
    const parsed = RunRecordSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `${recordPath} is not a run record (${issue?.path.join(".") || "/"}: ${issue?.message}); nothing was written`,
      );
    }
    const record = parsed.data;
    const listingPath = join(options.runsDir, `${day}.listing.jsonl`);
    const listing = await readText(listingPath);
    if (listing === undefined) withoutTexts.push(day);
    const texts = new Map<string, Candidate>();
    if (listing !== undefined) {
      const rows = parseListing(listing, listingPath);
      for (const candidate of collectCandidates(rows, { source: listingPath, sample: false }).candidates) {
        texts.set(candidate.id, candidate);
      }
    }
    const value = buildScreenedDay({ record, generatedAt: record.finished_at, texts });
    planned.push({
      path: join(options.outDir, "v1", "screened", `${day}.json`),
      kind: "screened" as const,
      value,
    });
  }
  await publishFiles(planned);
  return { days, written: planned.map((file) => file.path), withoutTexts, missing };
}

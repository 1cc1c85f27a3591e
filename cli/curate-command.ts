import { basename } from "node:path";
import type { Command } from "commander";
import { type CurateResult, curate } from "../pipeline/curate.ts";
import { dayOf } from "../pipeline/domain/calendar.ts";
import { DEFAULT_SELECTION, type SelectionPolicy } from "../pipeline/domain/selection.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import { createFileSource } from "../pipeline/sources/file-source.ts";
import { createSampleSource, sampleDays } from "../pipeline/sources/sample-source.ts";
import type { CandidateSource } from "../pipeline/sources/source.ts";
import { parseDateOption, parseIntOption } from "./options.ts";
import { createOutput, type Output, UsageError } from "./output.ts";
import { DEFAULT_PUBLIC_DIR, DEFAULT_RUNS_DIR } from "./paths.ts";

interface CurateFlags {
  date?: string;
  source: string;
  out: string;
  runs: string;
  minTotal?: number;
  maxPicks?: number;
  json: boolean;
}

function sourceFrom(flag: string): CandidateSource {
  if (flag === "sample") return createSampleSource();
  if (flag.startsWith("file:") && flag.length > 5) return createFileSource(flag.slice(5));
  throw new UsageError(`Expected \`--source\` to be \`sample\` or \`file:PATH\`, got \`${flag}\``);
}

/** The day to curate when `--date` is absent: the newest sample day, a date in the file name, or today. */
async function defaultDate(flag: string, now: Date): Promise<string> {
  if (flag === "sample") return (await sampleDays()).at(-1) ?? dayOf(now);
  const named = /\d{4}-\d{2}-\d{2}/.exec(basename(flag))?.[0];
  return named ?? dayOf(now);
}

export function printSummary(out: Output, result: CurateResult): void {
  const { snapshot, record } = result;
  const { counts, selection } = snapshot;
  out.line(
    `${snapshot.date}${snapshot.sample ? " (sample)" : ""}: screened ${counts.screened}, kept ${counts.kept}` +
      ` (threshold: total >= ${selection.min_total}, REG FIT >= ${selection.min_reg_fit}, at most ${selection.max_picks})` +
      (counts.skipped > 0 ? `, skipped ${counts.skipped}` : "") +
      (counts.duplicates > 0 ? `, ${counts.duplicates} repeated ids counted once` : ""),
  );
  for (const pick of snapshot.picks) {
    out.line(
      `  ${pick.rank}. ${pick.arxiv_id}  total ${pick.scores.total}/45  REG FIT ${pick.scores.reg_fit.score}  ${pick.title}`,
    );
  }
  for (const path of result.unreadable) out.line(`  warning: left out unreadable snapshot ${path}`);
  out.json({ date: record.date, counts, selection, picks: snapshot.picks, files: result.files });
}

export interface CurateJobOptions {
  date: string;
  source: CandidateSource;
  outDir: string;
  runsDir: string;
  selection: SelectionPolicy;
  out: Output;
}

/** Runs one day's curation and prints its summary. */
export async function runCurate(options: CurateJobOptions): Promise<CurateResult> {
  const result = await curate({
    date: options.date,
    source: options.source,
    outDir: options.outDir,
    runsDir: options.runsDir,
    rubric: await loadRubric(),
    selection: options.selection,
    now: () => new Date(),
    onProgress: (stage, message) => options.out.progress(`${stage}: ${message}`),
  });
  printSummary(options.out, result);
  return result;
}

export function registerCurate(program: Command): void {
  program
    .command("curate")
    .description(
      "screen one announcement day, score every candidate, keep the picks and publish the snapshots",
    )
    .option(
      "--date <YYYY-MM-DD>",
      "the announcement day (default: newest sample day, a date in the file name, or today)",
      parseDateOption,
    )
    .option(
      "--source <source>",
      "where candidates come from: `sample` or `file:PATH` (JSON Lines or JSON)",
      "sample",
    )
    .option("--out <dir>", "static site root; snapshots go to <dir>/v1", DEFAULT_PUBLIC_DIR)
    .option("--runs <dir>", "where run records go", DEFAULT_RUNS_DIR)
    .option(
      "--min-total <n>",
      "keep candidates whose total reaches n (0-45)",
      parseIntOption("--min-total", 0, 45),
    )
    .option("--max-picks <n>", "keep at most n picks a day", parseIntOption("--max-picks", 0, 100))
    .option("--json", "print the result as JSON", false)
    .action(async (flags: CurateFlags) => {
      const out = createOutput({ json: flags.json });
      const source = sourceFrom(flags.source);
      await runCurate({
        date: flags.date ?? (await defaultDate(flags.source, new Date())),
        source,
        outDir: flags.out,
        runsDir: flags.runs,
        selection: {
          ...DEFAULT_SELECTION,
          ...(flags.minTotal === undefined ? {} : { min_total: flags.minTotal }),
          ...(flags.maxPicks === undefined ? {} : { max_picks: flags.maxPicks }),
        },
        out,
      });
    });
}

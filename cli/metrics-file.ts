import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { Option } from "commander";
import { writeFileAtomic } from "../pipeline/atomic-write.ts";
import { lastSuccessIn, type RunOutcome, runMetricsText } from "../pipeline/domain/run-metrics.ts";
import type { HttpCounts } from "../pipeline/domain/run-record.ts";
import { UsageError } from "./output.ts";

// `--metrics-file PATH` of `picks curate` and `picks backfill`: the run's outcome for node_exporter's
// textfile collector (docs/operations.md, "Metrics and logs").

export const metricsFileOption = (): Option =>
  new Option(
    "--metrics-file <path>",
    "write the run's outcome there for node_exporter's textfile collector (a *.prom file)",
  );

/**
 * The file's absolute path, checked before the run starts: its folder must exist, so a mistyped
 * path fails now rather than after an hour of work that no alert would then see.
 */
export function checkMetricsFile(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const file = resolve(path);
  const folder = dirname(file);
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {}
  if (!isFolder) {
    throw new UsageError(`--metrics-file: the folder ${folder} does not exist; create it or name another`);
  }
  return file;
}

/** Failed calls per upstream from the HTTP client's counts. */
export function failuresOf(http: HttpCounts | undefined): Record<string, number> {
  const failures: Record<string, number> = {};
  for (const [name, counts] of Object.entries(http?.by_upstream ?? {})) failures[name] = counts.failures;
  return failures;
}

/**
 * Writes the outcome atomically (temp file and rename, so the collector never reads half a file).
 * A failed run keeps the last success time of the previous file. A write that fails is reported and
 * makes the exit code 1; it never hides the run's own error.
 */
export async function writeRunMetrics(
  path: string,
  outcome: Omit<RunOutcome, "lastSuccessAt">,
): Promise<void> {
  try {
    let lastSuccessAt: number | null = outcome.succeeded ? outcome.finishedAt : null;
    if (!outcome.succeeded) {
      const previous = await readFile(path, "utf8").catch(() => "");
      lastSuccessAt = lastSuccessIn(previous, outcome.command);
    }
    await writeFileAtomic(path, runMetricsText({ ...outcome, lastSuccessAt }));
  } catch (error) {
    process.stderr.write(
      `picks: warning: the metrics file ${path} was not written: ${(error as Error).message}\n`,
    );
    process.exitCode = 1;
  }
}

// The outcome of a `picks curate` or `picks backfill` run in the Prometheus text format, for
// node_exporter's textfile collector: an alert can then see a run that failed or never ran.

export type RunCommand = "curate" | "backfill";

export interface RunOutcome {
  command: RunCommand;
  succeeded: boolean;
  /** When the run ended, epoch milliseconds. */
  finishedAt: number;
  durationMs: number;
  /** Candidates screened and picks published; null when the run failed before it knew. */
  candidates: number | null;
  picks: number | null;
  /** Calls that failed after their last retry, per upstream (arxiv, semantic_scholar, openalex, llm). */
  upstreamFailures: Readonly<Record<string, number>>;
  /** The last successful run's end, epoch milliseconds: this run's when it succeeded. Null: none known. */
  lastSuccessAt: number | null;
}

/** Reported even when a run made no call to them, so their series exist from the first run. */
export const KNOWN_UPSTREAMS = ["arxiv", "semantic_scholar", "openalex", "llm"] as const;

const SUCCESS_METRIC = "picks_run_last_success_timestamp_seconds";

const seconds = (ms: number): string => String(Math.round(ms) / 1000);

/** A label value as the text format writes it: backslash, quote and newline escaped. */
const labelValue = (value: string): string =>
  value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");

/** The file's text. Upstream names are the HTTP client's (fixed names, or a configured URL's host). */
export function runMetricsText(outcome: RunOutcome): string {
  const command = `command="${outcome.command}"`;
  const lines: string[] = [];
  const gauge = (name: string, help: string, samples: ReadonlyArray<[string, string]>) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
    for (const [labels, value] of samples) lines.push(`${name}{${labels}} ${value}`);
  };
  gauge(SUCCESS_METRIC, "When the last successful run ended, in Unix time; 0 when none is known.", [
    [command, outcome.lastSuccessAt === null ? "0" : seconds(outcome.lastSuccessAt)],
  ]);
  gauge("picks_run_last_run_timestamp_seconds", "When the last run ended, in Unix time.", [
    [command, seconds(outcome.finishedAt)],
  ]);
  gauge("picks_run_success", "1 when the last run succeeded (its days were published), 0 when it failed.", [
    [command, outcome.succeeded ? "1" : "0"],
  ]);
  gauge("picks_run_duration_seconds", "How long the last run took.", [
    [command, seconds(outcome.durationMs)],
  ]);
  if (outcome.candidates !== null) {
    gauge("picks_run_candidates", "Candidates the last run screened.", [
      [command, String(outcome.candidates)],
    ]);
  }
  if (outcome.picks !== null) {
    gauge("picks_run_picks", "Picks the last run published.", [[command, String(outcome.picks)]]);
  }
  const upstreams = [...new Set([...KNOWN_UPSTREAMS, ...Object.keys(outcome.upstreamFailures)])].sort();
  gauge(
    "picks_run_upstream_failures",
    "Calls of the last run that failed after their last retry, by upstream.",
    upstreams.map((name) => [
      `${command},upstream="${labelValue(name)}"`,
      String(outcome.upstreamFailures[name] ?? 0),
    ]),
  );
  return `${lines.join("\n")}\n`;
}

/** The last success time a previous file recorded for `command`, epoch milliseconds; null if none. */
export function lastSuccessIn(text: string, command: RunCommand): number | null {
  const prefix = `${SUCCESS_METRIC}{command="${command}"} `;
  for (const line of text.split("\n")) {
    if (!line.startsWith(prefix)) continue;
    const value = Number(line.slice(prefix.length).trim());
    return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) : null;
  }
  return null;
}

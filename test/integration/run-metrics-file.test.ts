import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPicks } from "../helpers/processes.ts";
import { promtool, promtoolSkipReason } from "../helpers/prometheus.ts";
import { curateListingArgs } from "../helpers/published.ts";

// `picks curate --metrics-file` and `picks backfill --metrics-file`: the run's outcome for
// node_exporter's textfile collector, read back as Prometheus would read it.

const sampleIn = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

const promtoolSkip = promtoolSkipReason();
if (promtoolSkip) console.warn(promtoolSkip);

// Ranked by the rubric's total: the outcome file is what is tested here, not the relevance model.
const RULES = ["--ranker", "rules"];

const LAST_SUCCESS = 'picks_run_last_success_timestamp_seconds{command="curate"}';

async function site() {
  const root = await mkdtemp(join(tmpdir(), "picks-run-metrics-"));
  return {
    root,
    publicDir: join(root, "public"),
    runsDir: join(root, "runs"),
    env: { ...process.env, STATE_DIR: join(root, "state") },
  };
}

/** A curate whose listing file does not exist: a failed run, writing its outcome to `file`. */
function curateMissing({ root, publicDir, runsDir, env }: Awaited<ReturnType<typeof site>>, file: string) {
  const missing = `file:${join(root, "missing.jsonl")}`;
  const args = ["curate", "--source", missing, "--date", "2026-06-13", "--no-citations"];
  return runPicks([...args, "--out", publicDir, "--runs", runsDir, ...RULES, "--metrics-file", file], env);
}

describe("picks curate --metrics-file", () => {
  it("writes the run's outcome, and a failed run keeps the last success time", async () => {
    const made = await site();
    const { root, publicDir, runsDir, env } = made;
    const file = join(root, "picks.prom");
    const ok = await runPicks(
      [...curateListingArgs(publicDir, runsDir, "2026-06-12"), ...RULES, "--metrics-file", file],
      env,
    );
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    const first = await readFile(file, "utf8");
    expect(sampleIn(first, 'picks_run_success{command="curate"}')).toBe(1);
    expect(sampleIn(first, 'picks_run_candidates{command="curate"}')).toBeGreaterThan(100);
    expect(sampleIn(first, 'picks_run_picks{command="curate"}')).toBeGreaterThan(0);
    expect(sampleIn(first, 'picks_run_upstream_failures{command="curate",upstream="arxiv"}')).toBe(0);
    const succeededAt = sampleIn(first, LAST_SUCCESS) as number;
    expect(Math.abs(succeededAt - Date.now() / 1000)).toBeLessThan(120);
    if (!promtoolSkip) {
      const checked = await promtool(["check", "metrics"], first);
      expect(checked.output).toBe("");
      expect(checked.code).toBe(0);
    }

    const failed = await curateMissing(made, file);
    expect(failed.code).toBe(1);
    const second = await readFile(file, "utf8");
    expect(sampleIn(second, 'picks_run_success{command="curate"}')).toBe(0);
    expect(sampleIn(second, LAST_SUCCESS)).toBe(succeededAt);
    expect(sampleIn(second, 'picks_run_last_run_timestamp_seconds{command="curate"}')).toBeGreaterThanOrEqual(
      succeededAt,
    );
    expect(sampleIn(second, 'picks_run_candidates{command="curate"}')).toBeUndefined();
    if (!promtoolSkip) expect((await promtool(["check", "metrics"], second)).code).toBe(0);
    // Written by rename: no temporary file is left beside it for the collector to meet.
    expect((await readdir(root)).filter((name) => name.startsWith("picks.prom"))).toEqual(["picks.prom"]);
  });

  it("a failed first run reports no success at all", async () => {
    const made = await site();
    const file = join(made.root, "picks.prom");
    const failed = await curateMissing(made, file);
    expect(failed.code).toBe(1);
    expect(sampleIn(await readFile(file, "utf8"), LAST_SUCCESS)).toBe(0);
  });

  it("refuses a file in a folder that does not exist, before the run starts (exit 2)", async () => {
    const { root, publicDir, runsDir, env } = await site();
    const file = join(root, "no-such-folder", "picks.prom");
    const result = await runPicks(
      [...curateListingArgs(publicDir, runsDir, "2026-06-12"), "--metrics-file", file],
      env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no-such-folder");
    expect(existsSync(publicDir)).toBe(false);
    expect(existsSync(runsDir)).toBe(false);
  });
});

describe("picks backfill --metrics-file", () => {
  it("refuses a file in a folder that does not exist, before the run starts (exit 2)", async () => {
    const { root, env } = await site();
    const result = await runPicks(
      [
        "backfill",
        "--from",
        "2026-06-01",
        "--to",
        "2026-06-02",
        "--metrics-file",
        join(root, "nope", "b.prom"),
      ],
      env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("nope");
    expect(existsSync(join(root, "state"))).toBe(false);
  });
});

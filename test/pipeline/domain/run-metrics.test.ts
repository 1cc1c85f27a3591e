import { describe, expect, it } from "vitest";
import { lastSuccessIn, type RunOutcome, runMetricsText } from "../../../pipeline/domain/run-metrics.ts";

const outcome: RunOutcome = {
  command: "curate",
  succeeded: true,
  finishedAt: Date.UTC(2026, 10, 20, 2, 35, 12, 345),
  durationMs: 91_250,
  candidates: 74,
  picks: 5,
  upstreamFailures: { arxiv: 0, semantic_scholar: 3, "llm.example:8080": 1 },
  lastSuccessAt: Date.UTC(2026, 10, 20, 2, 35, 12, 345),
};

describe("the run's metrics file", () => {
  it("holds the outcome in the text format, every known upstream included", () => {
    const text = runMetricsText(outcome);
    expect(text).toContain('picks_run_last_success_timestamp_seconds{command="curate"} 1795142112.345\n');
    expect(text).toContain('picks_run_success{command="curate"} 1\n');
    expect(text).toContain('picks_run_duration_seconds{command="curate"} 91.25\n');
    expect(text).toContain('picks_run_candidates{command="curate"} 74\n');
    expect(text).toContain('picks_run_picks{command="curate"} 5\n');
    expect(text).toContain('picks_run_upstream_failures{command="curate",upstream="semantic_scholar"} 3\n');
    expect(text).toContain('picks_run_upstream_failures{command="curate",upstream="openalex"} 0\n');
    expect(text).toContain('picks_run_upstream_failures{command="curate",upstream="llm.example:8080"} 1\n');
    expect(text.endsWith("\n")).toBe(true);
  });

  it("leaves out what a failed run does not know, and says when none succeeded", () => {
    const text = runMetricsText({
      ...outcome,
      succeeded: false,
      candidates: null,
      picks: null,
      lastSuccessAt: null,
    });
    expect(text).toContain('picks_run_success{command="curate"} 0\n');
    expect(text).toContain('picks_run_last_success_timestamp_seconds{command="curate"} 0\n');
    expect(text).not.toContain("picks_run_candidates");
    expect(text).not.toContain("picks_run_picks");
  });

  it("reads the last success back from a previous file, per command", () => {
    const text = runMetricsText(outcome);
    expect(lastSuccessIn(text, "curate")).toBe(outcome.finishedAt);
    expect(lastSuccessIn(text, "backfill")).toBeNull();
    expect(lastSuccessIn("", "curate")).toBeNull();
    expect(
      lastSuccessIn('picks_run_last_success_timestamp_seconds{command="curate"} 0\n', "curate"),
    ).toBeNull();
  });
});

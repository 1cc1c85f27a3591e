import { mkdtemp } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPicks } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";
import { type PicksChild, serveArgs, startPicks } from "../server/submissions/picks-process.ts";

// A model that is down costs seconds, not minutes: the circuit breaker of the outbound client, seen
// from the real `picks` processes. The model is a refused loopback port, or a loopback server that
// takes connections and never answers.

describe("picks curate --judge llm with the model's port refusing connections", () => {
  it("falls back to the rules for all 75 candidates in under 10 s, and the run record says the circuit opened", async () => {
    const root = await mkdtemp(join(tmpdir(), "picks-model-down-"));
    const args = ["curate", "--source", "sample", "--date", "2026-11-20", "--judge", "llm", "--no-citations"];
    const started = performance.now();
    const done = await runPicks(
      [...args, "--out", join(root, "public"), "--runs", join(root, "runs"), "--json"],
      { ...process.env, LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "judge" },
    );
    const elapsed = performance.now() - started;
    expect(done.code, done.stderr).toBe(0);
    expect(elapsed).toBeLessThan(10_000);
    const result = JSON.parse(done.stdout) as {
      counts: { screened: number };
      scoring: { llm_scored: number; fallbacks: Array<{ reason: string }> };
      http: { by_upstream: Record<string, Record<string, unknown>> };
    };
    expect(result.counts.screened).toBe(75);
    expect(result.scoring.llm_scored).toBe(0);
    expect(result.scoring.fallbacks).toHaveLength(75);
    expect(result.http.by_upstream.llm).toMatchObject({ circuit: "open", circuit_opened: 1 });
    expect(Number(result.http.by_upstream.llm?.requests)).toBeLessThanOrEqual(8);
    expect(result.scoring.fallbacks.at(-1)?.reason).toMatch(/circuit is open/);
  }, 120_000);
});

describe("POST /v1/verify with the semantic review while the model never answers", () => {
  let model: Server;
  let server: PicksChild;

  beforeAll(async () => {
    // Takes every request and never answers: each review waits out its timeout.
    model = createServer(() => {});
    await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve));
    const { publicDir } = await publishSampleDays();
    server = await startPicks(
      serveArgs(publicDir),
      {
        STATE_STORE: "memory",
        VERIFY_LLM_BASE_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`,
        VERIFY_LLM_MODEL: "reviewer",
        VERIFY_LLM_TIMEOUT_MS: "400",
        VERIFY_RATE_LIMIT: "1000",
      },
      /listening on http/,
    );
  }, 60_000);
  afterAll(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
    model.closeAllConnections();
    await new Promise((resolve) => model.close(resolve));
  });

  const verify = async () => {
    const started = performance.now();
    const answer = await fetch(`${server.url}/v1/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        subject: "Quarterly note",
        body: "A short note to our clients about the quarter.",
        recipient: "client@example.org",
        options: { llm_check: true },
      }),
    });
    const body = (await answer.json()) as { semantic: { status: string; code?: string; reason: string } };
    return { status: answer.status, semantic: body.semantic, ms: performance.now() - started };
  };

  it("answers model_unavailable in under 100 ms once the circuit is open, and /health names it", async () => {
    const health = async () =>
      ((await (await fetch(`${server.url}/health`)).json()) as { circuits: unknown }).circuits;
    expect(await health()).toEqual({});
    const slow = [];
    for (let i = 0; i < 5; i++) slow.push(await verify());
    expect(slow.map((r) => r.semantic.code)).toEqual(Array(5).fill("model_timeout"));
    expect(await health()).toEqual({ llm: "open" });
    const fast = [];
    for (let i = 0; i < 10; i++) fast.push(await verify());
    for (const answer of fast) {
      expect(answer.status).toBe(200);
      expect(answer.semantic).toMatchObject({ status: "error", code: "model_unavailable" });
      expect(answer.semantic.reason).not.toMatch(/127\.0\.0\.1|circuit|Error/);
      expect(answer.ms).toBeLessThan(100);
    }
  }, 60_000);
});

import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPicks, type Started, startPicksServer } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";

// Regression: /v1/me, /v1/papers and /v1/bench/* sent no Cache-Control, and the key travels in a
// header shared caches do not key on. Every keyed answer, refusals included, is private and not stored.

let server: Started;
let env: Record<string, string>;
const keys: Record<"team" | "bench", string> = { team: "", bench: "" };

async function issue(tier: "team" | "bench"): Promise<string> {
  const firm = tier === "bench" ? ["--firm", "acme-bank"] : [];
  const done = await runPicks(
    ["keys", "issue", "--tier", tier, ...firm, "--email", "p@example.org", "--label", "p", "--json"],
    { ...process.env, ...env },
  );
  expect(done.code, done.stderr).toBe(0);
  return (JSON.parse(done.stdout) as { key: string }).key;
}

beforeAll(async () => {
  const site = await publishSampleDays();
  env = { STATE_DIR: await mkdtemp(join(tmpdir(), "picks-private-")), STATE_STORE: "sqlite" };
  keys.team = await issue("team");
  keys.bench = await issue("bench");
  server = await startPicksServer(site.publicDir, env);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe("keyed answers are private", () => {
  it.each([
    ["GET", "/v1/me", "team", 200],
    ["GET", "/v1/papers?days=7", "team", 200],
    ["GET", "/v1/papers/not-an-id", "team", 422],
    ["GET", "/v1/papers", null, 401],
    ["GET", "/v1/bench/rubric", "bench", 200],
    ["GET", "/v1/bench/watchlist", "team", 403],
    ["GET", "/v1/webhooks", "team", 200],
    ["POST", "/mcp", "team", 200],
  ] as const)("%s %s (%s key) answers %i with Cache-Control: private, no-store", async (method, path, key, status) => {
    const headers: Record<string, string> = key ? { "x-api-key": keys[key] } : {};
    const init: RequestInit = { method, headers };
    if (method === "POST") {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "labs_stats" },
      });
    }
    const answer = await fetch(`${server.url}${path}`, init);
    expect(answer.status).toBe(status);
    expect(answer.headers.get("cache-control")).toBe("private, no-store");
  });

  it("leaves the public snapshots cacheable", async () => {
    const answer = await fetch(`${server.url}/v1/daily/latest`, { headers: { "x-api-key": keys.team } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toMatch(/public/);
  });
});

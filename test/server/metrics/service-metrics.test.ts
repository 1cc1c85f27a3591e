import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../../server/context.ts";
import { listen, type RunningServer } from "../../../server/http/listen.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";
import { verifyShortNote } from "../../helpers/verify-note.ts";

// The service's counters, read through /metrics on the main port behind the token: what a keyed
// request, a refusal, a tool call and a verification add, and that no label repeats request input.

const TOKEN = "in-process-metrics-token-0123";

let snapshots: SnapshotCache;
let context: AppContext;
let running: RunningServer;
beforeAll(async () => {
  const { publicDir } = await publishSampleDays();
  snapshots = await createSnapshotCache({ publicDir });
  context = await testContext(snapshots, {
    config: { metrics: { port: null, host: "127.0.0.1", token: TOKEN, logRequests: false } },
  });
  running = await listen(context, { port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await running.close();
  snapshots.close();
});

async function scrape(): Promise<string> {
  const answer = await fetch(`${running.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(answer.status).toBe(200);
  return answer.text();
}

function sample(text: string, series: string): number {
  const line = text.split("\n").find((entry) => entry.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** The change in `series` that `act` makes. */
async function delta(series: string, act: () => Promise<unknown>): Promise<number> {
  const before = sample(await scrape(), series);
  await act();
  return sample(await scrape(), series) - before;
}

describe("service metrics", () => {
  it("count a quota refusal by the key's tier", async () => {
    const { key, record } = await context.keys.issue({ tier: "free", email: "q@example.org", label: "q" });
    // Spend the free tier's window, then ask once more.
    const limit = 100;
    for (let spent = 0; spent < limit; spent++) await context.keys.spend(record);
    const refused = await delta('picks_quota_refusals_total{tier="free"}', async () => {
      const answer = await fetch(`${running.url}/v1/papers`, { headers: { "x-api-key": key } });
      expect(answer.status).toBe(429);
    });
    expect(refused).toBe(1);
  });

  it("count verification answers by verdict", async () => {
    const before = await scrape();
    const answer = await verifyShortNote(running.url);
    expect(answer.status).toBe(200);
    const { verdict } = (await answer.json()) as { verdict: string };
    const series = `picks_verify_answers_total{verdict="${verdict}"}`;
    expect(sample(await scrape(), series) - sample(before, series)).toBe(1);
  });

  it("count MCP tool calls by tool and outcome, a kept answer too, never a name the client made up", async () => {
    const { key } = await context.keys.issue({ tier: "enterprise", email: "m@example.org", label: "m" });
    const call = (name: string, args: Record<string, unknown>) =>
      fetch(`${running.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "x-api-key": key,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: args },
        }),
      }).then((answer) => answer.text());
    const ok = 'picks_mcp_tool_calls_total{tool="labs_stats",outcome="ok"}';
    expect(await delta(ok, () => call("labs_stats", {}))).toBe(1);
    expect(await delta(ok, () => call("labs_stats", {}))).toBe(1);
    const refused = 'picks_mcp_tool_calls_total{tool="labs_papers",outcome="refused"}';
    expect(await delta(refused, () => call("labs_papers", { days: "many" }))).toBe(1);
    await call("made_up_tool_name", {});
    expect(await scrape()).not.toContain("made_up_tool_name");
  });

  it("time requests by route template, never by path", async () => {
    const count = (route: string, status: string) =>
      `http_server_request_duration_seconds_count{route="${route}",method="GET",status_class="${status}"}`;
    expect(
      await delta(count("/v1/papers/:arxiv_id", "4xx"), () => fetch(`${running.url}/v1/papers/9999.99999`)),
    ).toBe(1);
    expect(
      await delta(count("/v1/daily/:date", "2xx"), () =>
        fetch(`${running.url}/v1/daily/latest`).then(() =>
          fetch(`${running.url}/v1/daily/${snapshots.latestDate()}`),
        ),
      ),
    ).toBe(1);
    expect(await delta(count("unmatched", "4xx"), () => fetch(`${running.url}/no-such-page-7f3a`))).toBe(1);
    expect(await scrape()).not.toContain("7f3a");
    expect(await scrape()).not.toContain("9999.99999");
  });
});

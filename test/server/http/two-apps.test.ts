// Two apps in one process share nothing: each one's state (answer caches, the hosted MCP server, the
// limits' windows, the metrics registry and its gauges' sources) lives on its own context, so what one answered never reaches the other, as h3's own
// tests build many apps side by side.

import { afterAll, beforeAll, expect, it } from "vitest";
import type { AppContext } from "../../../server/context.ts";
import { createApp } from "../../../server/http/app.ts";
import { listen } from "../../../server/http/listen.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { testContext } from "../../helpers/context.ts";
import { publishFixtureDays, publishSampleDays } from "../../helpers/published.ts";
import { verifyShortNote } from "../../helpers/verify-note.ts";

let sample: SnapshotCache;
let fixture: SnapshotCache;
let contexts: AppContext[];

beforeAll(async () => {
  sample = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
  fixture = await createSnapshotCache({ publicDir: (await publishFixtureDays()).publicDir });
  contexts = [await testContext(sample), await testContext(fixture)];
});

afterAll(() => {
  sample?.close();
  fixture?.close();
});

const keyOf = async (context: AppContext) =>
  (await context.keys.issue({ tier: "enterprise", email: "two@example.org", label: "two" })).key;

it("answers the same query from each app's own snapshots, alternately", async () => {
  const [a, b] = [createApp(contexts[0] as AppContext), createApp(contexts[1] as AppContext)];
  const [keyA, keyB] = [await keyOf(contexts[0] as AppContext), await keyOf(contexts[1] as AppContext)];
  const list = async (app: typeof a, key: string) =>
    (await (
      await app.fetch(
        new Request("http://localhost/v1/papers?days=3650&limit=5000", { headers: { "x-api-key": key } }),
      )
    ).json()) as { total: number; papers: Array<{ arxiv_id: string }> };
  const first = [await list(a, keyA), await list(b, keyB)];
  expect(first[0]?.total).not.toBe(first[1]?.total);
  // Asked again, each app answers from what it keeps, which is its own.
  expect([await list(b, keyB), await list(a, keyA)]).toEqual([first[1], first[0]]);
  const mcp = async (app: typeof a, key: string) =>
    (await (
      await app.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "labs_papers", arguments: { days: 3650, compact: true } },
          }),
        }),
      )
    ).text()) as string;
  const tools = [await mcp(a, keyA), await mcp(b, keyB)];
  expect(tools[0]).not.toBe(tools[1]);
  expect([await mcp(b, keyB), await mcp(a, keyA)]).toEqual([tools[1], tools[0]]);
});

it("names each app's own origin in its challenge, whichever app answered first", async () => {
  const challenge = async (context: AppContext, url: string) =>
    (await createApp(context).fetch(new Request(url, { method: "POST" }))).headers.get("www-authenticate");
  expect(await challenge(contexts[0] as AppContext, "http://one.example/mcp")).toContain(
    'resource_metadata="http://one.example/.well-known/oauth-protected-resource/mcp"',
  );
  expect(await challenge(contexts[1] as AppContext, "https://two.example/mcp")).toContain(
    'resource_metadata="https://two.example/.well-known/oauth-protected-resource/mcp"',
  );
});

it("counts each app's requests, refusals and gauges in its own registry", async () => {
  const token = "two-apps-metrics-token-0123456";
  const metrics = { port: null, host: "127.0.0.1", token, logRequests: false };
  const [a, b] = [
    await testContext(sample, { config: { metrics } }),
    await testContext(fixture, { config: { metrics } }),
  ];
  const servers = [
    await listen(a, { port: 0, host: "127.0.0.1" }),
    await listen(b, { port: 0, host: "127.0.0.1" }),
  ];
  try {
    const scrape = async (index: number) =>
      (
        await fetch(`${servers[index]?.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
      ).text();
    const series = (text: string, name: string) =>
      Number(
        text
          .split("\n")
          .find((line) => line.startsWith(`${name} `))
          ?.slice(name.length + 1) ?? 0,
      );
    const verify = () => verifyShortNote(servers[0]?.url as string);
    const verdict = (await (await verify()).json()) as { verdict: string };
    await verify();
    const count = `picks_verify_answers_total{verdict="${verdict.verdict}"}`;
    const [first, second] = [await scrape(0), await scrape(1)];
    expect(series(first, count)).toBe(2);
    expect(series(second, count)).toBe(0);
    // Each one's gauges read its own snapshots.
    expect(series(first, "picks_snapshots_held")).toBe(a.snapshots.days().length);
    expect(series(second, "picks_snapshots_held")).toBe(b.snapshots.days().length);
    expect(a.snapshots.days().length).not.toBe(b.snapshots.days().length);
    expect(a.metrics.registry).not.toBe(b.metrics.registry);
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
});

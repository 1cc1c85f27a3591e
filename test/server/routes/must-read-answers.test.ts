import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pick } from "../../../pipeline/domain/pick.ts";
import { listItem } from "../../../pipeline/domain/picks-index.ts";
import type { DailySnapshot } from "../../../pipeline/domain/snapshot.ts";
import { dailyPublishedData } from "../../../pipeline/domain/webhook.ts";
import { readDailySnapshots } from "../../../pipeline/publish.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor, MODES } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishRankedSampleDays } from "../../helpers/published.ts";
import { type Connected, connectInMemory } from "../mcp/mcp-clients.ts";

// Issue 40, point 6: every pick in the API answers carries its must-read likelihood beside the rubric's
// total, on days the relevance model ranked (as `picks curate` does by default). Every answer here is
// also checked against the OpenAPI document by the client.

let publicDir: string;
let snapshots: SnapshotCache;
let picks: Pick[];
beforeAll(async () => {
  ({ publicDir } = await publishRankedSampleDays());
  snapshots = await createSnapshotCache({ publicDir });
  const days: DailySnapshot[] = (await readDailySnapshots(join(publicDir, "v1", "daily"))).days.reverse();
  picks = days.flatMap((day) => day.picks);
}, 60_000);
afterAll(() => snapshots.close());

const mustReadOf = (id: string, date: string): number | undefined =>
  picks.find((pick) => pick.arxiv_id === id && pick.date === date)?.relevance?.must_read;

it("publishes the sample days ranked by the model, each pick with its must-read likelihood", () => {
  expect(picks.length).toBeGreaterThan(5);
  for (const pick of picks) expect(pick.relevance?.must_read, pick.arxiv_id).toEqual(expect.any(Number));
});

it("leaves must_read out of a list item and a daily.published event when the model gave none", () => {
  const first = picks[0] as Pick;
  const { relevance, why_ranked: _why, ...ruled } = first;
  // A day the model ranked before calibration: its heads, no likelihood.
  const uncalibrated: Pick = { ...ruled, relevance: { on_topic: 0.9, top: 0.5, regulated: 0.2 } };
  expect(listItem(first).must_read).toBe(relevance?.must_read);
  expect(listItem(ruled)).not.toHaveProperty("must_read");
  expect(listItem(uncalibrated)).not.toHaveProperty("must_read");
  const day = (pick: Pick): DailySnapshot => ({
    date: pick.date,
    generated_at: "2026-11-21T06:00:00.000Z",
    sample: true,
    source: "sample",
    rubric_version: "2026.11.3",
    selection: { min_total: 6, min_reg_fit: 2, max_picks: 6 },
    counts: { screened: 75, skipped: 0, duplicates: 0, kept: 1 },
    picks: [pick],
  });
  const event = (pick: Pick) =>
    (dailyPublishedData(day(pick), "https://picks.example.org").picks as Array<Record<string, unknown>>)[0];
  expect(event(first)).toMatchObject({ total: first.scores.total, must_read: relevance?.must_read });
  expect(event(ruled)).not.toHaveProperty("must_read");
  expect(event(uncalibrated)).not.toHaveProperty("must_read");
});

describe.each(MODES)("HTTP answers (%s)", (mode) => {
  let call: Call;
  let close: () => Promise<void>;
  let key: string;
  beforeAll(async () => {
    const context = await testContext(snapshots);
    ({ call, close } = await clientFor(mode, context));
    key = (await context.keys.issue({ tier: "enterprise", email: "e@example.org", label: "ent" })).key;
  });
  afterAll(() => close());
  const get = (path: string) => call(path, { headers: { "x-api-key": key } });

  it("GET /v1/papers lists each pick's must_read right after its total", async () => {
    const response = await get("/v1/papers?days=30&limit=100");
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { papers: Array<Record<string, unknown>> };
    expect(answer.papers).toHaveLength(picks.length);
    for (const paper of answer.papers) {
      expect(paper.must_read).toBe(mustReadOf(paper.arxiv_id as string, paper.date as string));
      const keys = Object.keys(paper);
      expect(keys.indexOf("must_read")).toBe(keys.indexOf("total") + 1);
    }
  });

  it("GET /v1/papers/{arxiv_id} and /v1/daily/{date} carry relevance.must_read", async () => {
    const first = picks[0] as Pick;
    const paper = (await (await get(`/v1/papers/${first.arxiv_id}`)).json()) as Pick;
    expect(paper.relevance?.must_read).toBe(first.relevance?.must_read);
    const day = (await (await call(`/v1/daily/${first.date}`)).json()) as DailySnapshot;
    expect(day.picks.map((pick) => pick.relevance?.must_read)).toEqual(
      picks.filter((pick) => pick.date === first.date).map((pick) => pick.relevance?.must_read),
    );
  });
});

describe("MCP tools", () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectInMemory(publicDir);
  });
  afterAll(() => mcp.close());

  it("labs_papers and labs_paper give each pick's relevance.must_read", async () => {
    const page = await mcp.call("labs_papers", { days: 30, limit: 25 });
    expect(page.isError, page.text).toBeFalsy();
    const listed = (page.structuredContent as { picks: Pick[] }).picks;
    expect(listed.length).toBeGreaterThan(0);
    for (const pick of listed) {
      expect(pick.relevance?.must_read).toBe(mustReadOf(pick.arxiv_id, pick.date));
    }
    const first = picks[0] as Pick;
    const one = await mcp.call("labs_paper", { arxiv_id: first.arxiv_id });
    expect(one.isError, one.text).toBeFalsy();
    expect((one.structuredContent as { pick: Pick }).pick.relevance?.must_read).toBe(
      first.relevance?.must_read,
    );
  });
});

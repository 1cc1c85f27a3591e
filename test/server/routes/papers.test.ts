import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PapersList } from "../../../pipeline/domain/api-answers.ts";
import type { DailySnapshot } from "../../../pipeline/domain/snapshot.ts";
import { readDailySnapshots } from "../../../pipeline/publish.ts";
import type { AppContext } from "../../../server/context.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor, keyedClientFor, MODES } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";
import { AXES_IN_ORDER } from "../../helpers/rubric.ts";

let snapshots: SnapshotCache;
let days: readonly DailySnapshot[];
beforeAll(async () => {
  const { publicDir } = await publishSampleDays();
  snapshots = await createSnapshotCache({ publicDir });
  // The published files themselves, read apart from the server: what its answers must agree with.
  days = (await readDailySnapshots(join(publicDir, "v1", "daily"))).days.reverse();
});
afterAll(() => snapshots.close());

describe.each(MODES)("keyed picks queries (%s)", (mode) => {
  let call: Call;
  let close: () => Promise<void>;
  let context: AppContext;
  let free: string;
  let enterprise: string;

  beforeAll(async () => {
    context = await testContext(snapshots);
    ({ call, close, free, enterprise } = await keyedClientFor(mode, context));
  });
  afterAll(() => close());

  const get = (path: string, key: string) => call(path, { headers: { "x-api-key": key } });

  // Regression: the list is written from each item's kept JSON; its bytes stay JSON.stringify's.
  it("answers the bytes JSON.stringify would write, for a first query and one sharing its items", async () => {
    for (const path of ["/v1/papers?days=30&limit=50", "/v1/papers?days=30&limit=50&min_reg_fit=2"]) {
      const text = await (await get(path, enterprise)).text();
      expect(text).toBe(JSON.stringify(JSON.parse(text)));
      expect((JSON.parse(text) as PapersList).papers.length).toBeGreaterThan(0);
    }
  });

  it("lists the sample days' picks newest first, in rank order, as compact items", async () => {
    const response = await get("/v1/papers", free);
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-policy")).toBe('"quota";q=100;w=2592000');
    expect(response.headers.get("ratelimit")).toMatch(/^"quota";r=99;t=\d+$/);
    const answer = (await response.json()) as PapersList;
    const expected = days.flatMap((day) => day.picks.map((pick) => `${pick.date}#${pick.rank}`));
    expect(expected.length).toBeGreaterThan(5);
    expect(answer.papers.map((paper) => `${paper.date}#${paper.rank}`)).toEqual(expected.slice(0, 25));
    expect(answer).toMatchObject({
      tier: "free",
      total: expected.length,
      returned: Math.min(25, expected.length),
    });
    expect(answer.applied).toMatchObject({
      days: 7,
      limit: 25,
      capped: [],
      to: "2026-11-20",
      from: "2026-11-14",
    });
    expect(Object.keys(answer.papers[0]?.axes ?? {})).toEqual(AXES_IN_ORDER);
  });

  it("caps limit and days at the tier's maximum and says so", async () => {
    const answer = (await (await get("/v1/papers?limit=100&days=30", free)).json()) as PapersList;
    expect(answer.applied).toMatchObject({ days: 7, limit: 25, capped: ["days", "limit"] });
    const wide = (await (await get("/v1/papers?limit=100&days=30", enterprise)).json()) as PapersList;
    expect(wide.applied).toMatchObject({ days: 30, limit: 100, capped: [] });
  });

  const LONG = "123456789012345678901234567890";
  it.each([
    ["free", "limit=6000", { days: 7, limit: 25, capped: ["limit"] }],
    ["free", `limit=${LONG}&days=${LONG}`, { days: 7, limit: 25, capped: ["days", "limit"] }],
    ["free", `days=${"9".repeat(4300)}`, { days: 7, limit: 25, capped: ["days"] }],
    ["enterprise", "limit=6000", { days: 7, limit: 5000, capped: ["limit"] }],
    ["enterprise", `limit=${LONG}`, { limit: 5000, capped: ["limit"] }],
    ["enterprise", "limit=5000&days=3650", { days: 3650, limit: 5000, capped: [] }],
    // A full history reaches as far as any answer does: ten years.
    ["enterprise", "days=4000", { days: 3650, capped: ["days"], from: "2016-11-23" }],
    ["enterprise", `days=${LONG}`, { days: 3650, capped: ["days"] }],
    ["enterprise", "days=%204000%20&limit=+6_000", { days: 3650, limit: 5000, capped: ["days", "limit"] }],
  ])("lowers rather than refuses a large value: %s ?%s", async (tier, query, applied) => {
    const response = await get(`/v1/papers?${query}`, tier === "free" ? free : enterprise);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as PapersList;
    expect(answer.applied).toMatchObject(applied);
    if (tier === "enterprise" && "days" in applied) {
      expect(answer.total).toBe(days.reduce((sum, day) => sum + day.picks.length, 0));
    }
  });

  it("filters by an axis score, the total and REG FIT", async () => {
    const byAxis = (await (await get("/v1/papers?axis=A6&min_score=3", enterprise)).json()) as PapersList;
    expect(byAxis.papers.every((paper) => (paper.axes.A6 ?? 0) >= 3)).toBe(true);
    const all = days.flatMap((day) => day.picks);
    expect(byAxis.total).toBe(all.filter((pick) => pick.scores.axes.A6.score >= 3).length);
    const byTotal = (await (
      await get("/v1/papers?min_score=25&min_reg_fit=2", enterprise)
    ).json()) as PapersList;
    expect(byTotal.total).toBe(all.filter((p) => p.scores.total >= 25 && p.scores.reg_fit.score >= 2).length);
    const oneDay = (await (await get("/v1/papers?days=1&limit=1", enterprise)).json()) as PapersList;
    expect(oneDay.papers.map((paper) => paper.date)).toEqual(["2026-11-20"]);
  });

  it.each([
    [
      "axis=A10",
      {
        type: "enum",
        loc: ["query", "axis"],
        msg: "Input should be 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8' or 'A9'",
        input: "A10",
        ctx: { expected: "'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8' or 'A9'" },
      },
    ],
    [
      "limit=abc",
      {
        type: "int_parsing",
        loc: ["query", "limit"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "abc",
      },
    ],
    [
      "limit=0",
      {
        type: "greater_than_equal",
        loc: ["query", "limit"],
        msg: "Input should be greater than or equal to 1",
        input: "0",
        ctx: { ge: 1 },
      },
    ],
    [
      "limit=-5",
      {
        type: "greater_than_equal",
        loc: ["query", "limit"],
        msg: "Input should be greater than or equal to 1",
        input: "-5",
        ctx: { ge: 1 },
      },
    ],
    [
      "days=1e3",
      {
        type: "int_parsing",
        loc: ["query", "days"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "1e3",
      },
    ],
    [
      "limit=60.5",
      {
        type: "int_parsing",
        loc: ["query", "limit"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "60.5",
      },
    ],
    [
      `days=${"1".repeat(4301)}`,
      {
        type: "int_parsing_size",
        loc: ["query", "days"],
        msg: "Unable to parse input string as an integer, exceeded maximum size",
        input: "1".repeat(4301),
      },
    ],
    [
      "min_reg_fit=4",
      {
        type: "less_than_equal",
        loc: ["query", "min_reg_fit"],
        msg: "Input should be less than or equal to 3",
        input: "4",
        ctx: { le: 3 },
      },
    ],
  ])("GET /v1/papers?%s is a 422 and spends nothing", async (query, issue) => {
    const record = await context.keys.find(free);
    if (!record) throw new Error("the free key is missing");
    const before = (await context.keys.usage(record)).used;
    const response = await get(`/v1/papers?${query}`, free);
    expect(response.status).toBe(422);
    expect(await response.text()).toBe(JSON.stringify({ detail: [issue] }));
    expect((await context.keys.usage(record)).used).toBe(before);
  });

  it("gets one pick in full, also by a versioned id, and refuses malformed and unknown ids", async () => {
    const pick = days[0]?.picks[0];
    expect(pick).toBeDefined();
    const full = await get(`/v1/papers/${pick?.arxiv_id}v3`, free);
    expect(full.status).toBe(200);
    expect(await full.json()).toEqual(pick);

    const malformed = await get("/v1/papers/not-an-id", free);
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as { detail: Array<{ type: string }> }).detail[0]?.type).toBe(
      "string_pattern_mismatch",
    );
    expect((await get("/v1/papers/1706.03762", free)).status).toBe(404);
    expect((await get("/v1/papers/cs%2F0112017", free)).status).toBe(404);
    expect((await get("/v1/papers/cs/0112017", free)).status).toBe(404);
  });

  it("does not spend quota on GET /v1/me", async () => {
    const first = (await (await get("/v1/me", free)).json()) as {
      usage: { used: number; remaining: number };
    };
    const second = await get("/v1/me", free);
    expect(second.headers.get("ratelimit")).toMatch(/^"quota";r=\d+;t=\d+$/);
    const body = (await second.json()) as { tier: string; usage: { used: number; remaining: number } };
    expect(body.tier).toBe("free");
    expect(body.usage.used).toBe(first.usage.used);
    expect(body.usage.remaining).toBe(100 - body.usage.used);
  });
});

describe("history window", () => {
  it("answers 403 for a pick older than the tier's history, and 200 for a tier that reaches it", async () => {
    const latest = snapshots.latestDate() as string;
    // Ten days on, the sample's picks lie outside a free key's 7 days but inside a pro key's 90.
    const shifted = {
      ...snapshots,
      latestDate: () => "2026-11-30",
      days: () => [{ date: "2026-11-30", picks: [] }, ...snapshots.days()],
    };
    const context = await testContext(shifted);
    const { call, close } = await clientFor("in-process", context);
    const free = (await context.keys.issue({ tier: "free", email: "f@example.org", label: "f" })).key;
    const pro = (await context.keys.issue({ tier: "pro", email: "p@example.org", label: "p" })).key;
    const pick = days.find((day) => day.date === latest)?.picks[0];
    const old = await call(`/v1/papers/${pick?.arxiv_id}`, { headers: { "x-api-key": free } });
    expect(old.status).toBe(403);
    expect(((await old.json()) as { detail: string }).detail).toContain(
      "outside the 7 days of history of the free tier",
    );
    expect((await call(`/v1/papers/${pick?.arxiv_id}`, { headers: { "x-api-key": pro } })).status).toBe(200);
    await close();
  });
});

describe("a server holding the days as list items", () => {
  it("still sends a pick in full, summary and evidence included, read back from its day's file", async () => {
    const publicDir = (await publishSampleDays()).publicDir;
    const slim = await createSnapshotCache({ publicDir });
    const context = await testContext(slim);
    const { call } = await clientFor("in-process", context);
    const { key } = await context.keys.issue({ tier: "pro", email: "s@example.org", label: "slim" });
    const held = slim.days()[0]?.picks[0];
    expect(held).not.toHaveProperty("summary");
    const file = JSON.parse(
      await readFile(join(publicDir, "v1", "daily", `${held?.date}.json`), "utf8"),
    ) as DailySnapshot;
    const full = file.picks.find((pick) => pick.arxiv_id === held?.arxiv_id);
    expect(full?.scores.axes.A1.evidence.length).toBeGreaterThan(0);
    const answer = await call(`/v1/papers/${held?.arxiv_id}`, { headers: { "x-api-key": key } });
    expect(await answer.json()).toEqual(full);
    slim.close();
  });
});

describe("repeated queries", () => {
  it("answer the same bytes, still spend the key's quota, and never outlive a reload", async () => {
    const { publicDir } = await publishSampleDays();
    const cache = await createSnapshotCache({ publicDir });
    const context = await testContext(cache);
    const { call, close } = await clientFor("in-process", context);
    const { key } = await context.keys.issue({ tier: "pro", email: "r@example.org", label: "repeat" });
    const ask = async () => {
      const answer = await call("/v1/papers?days=30&limit=50", { headers: { "x-api-key": key } });
      return {
        text: await answer.text(),
        remaining: Number(/r=(\d+)/.exec(answer.headers.get("ratelimit") ?? "")?.[1]),
      };
    };
    const first = await ask();
    const second = await ask();
    expect(second.text).toBe(first.text);
    expect(second.remaining).toBe(first.remaining - 1);

    // A new day published and loaded: the next answer is built from it.
    const latest = JSON.parse(
      await readFile(join(publicDir, "v1", "daily", "latest.json"), "utf8"),
    ) as DailySnapshot;
    const next: DailySnapshot = { ...latest, date: "2026-11-21" };
    await writeFile(join(publicDir, "v1", "daily", "2026-11-21.json"), JSON.stringify(next));
    await cache.reload();
    const after = JSON.parse((await ask()).text) as PapersList;
    expect(after.applied.to).toBe("2026-11-21");
    expect(after.total).toBe((JSON.parse(first.text) as PapersList).total + next.picks.length);
    await close();
    cache.close();
  });
});

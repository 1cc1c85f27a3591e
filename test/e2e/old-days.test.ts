import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "../../pipeline/domain/calendar.ts";
import { type Started, startPicksServer } from "../helpers/processes.ts";
import { publishYear } from "../server/mcp/year-site.ts";

// Days older than the 31 held in memory are read from their files. Regressions, on a real `picks serve`:
// a 304 still compressed, and uncached reads had no limit at all.

const LAST = "2026-11-20";
// 45 days: the 14 oldest are not held in memory.
const OLD = Array.from({ length: 14 }, (_, i) => addDays(LAST, -(31 + i)));
let server: Started;

beforeAll(async () => {
  const publicDir = join(await mkdtemp(join(tmpdir(), "picks-old-days-")), "public");
  await publishYear({ publicDir, days: 45, lastDate: LAST, picksPerDay: 4 });
  server = await startPicksServer(publicDir, {
    STATE_DIR: await mkdtemp(join(tmpdir(), "picks-old-days-state-")),
    OLD_DAY_RATE_LIMIT: "5",
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const day = (date: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/v1/daily/${date}`, { headers });

describe("old days", () => {
  it("answer a conditional request for a form not made yet with a 304 naming that form", async () => {
    const identity = await day(OLD[0] as string, { "accept-encoding": "identity" });
    expect(identity.status).toBe(200);
    const etag = identity.headers.get("etag") as string;
    const brTag = etag.replace(/"$/, '-br"');
    for (let i = 0; i < 3; i++) {
      const answer = await day(OLD[0] as string, { "accept-encoding": "br", "if-none-match": brTag });
      expect(answer.status).toBe(304);
      expect(answer.headers.get("etag")).toBe(brTag);
    }
    const full = await day(OLD[0] as string, { "accept-encoding": "br" });
    expect([full.status, full.headers.get("etag"), full.headers.get("content-encoding")]).toEqual([
      200,
      brTag,
      "br",
    ]);
  });

  it("have a per-address rate for reads not held in memory; held and kept days have none", async () => {
    // OLD[0] was read above (1 of 5) and is kept now: the fast path serves it without counting.
    for (let i = 0; i < 10; i++)
      expect((await day(OLD[0] as string, { "accept-encoding": "br" })).status).toBe(200);
    const fresh = await Promise.all(OLD.slice(1, 5).map((date) => day(date)));
    expect(fresh.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(fresh[3]?.headers.get("ratelimit")).toMatch(/^"old-days";r=0;t=\d+$/);
    const refused = await day(OLD[5] as string);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-policy")).toBe('"old-days";q=5;w=60');
    expect(await refused.json()).toEqual({ detail: expect.stringMatching(/^Too many reads of days older/) });
    // The recent days are never limited, nor the old days read already.
    for (let i = 0; i < 20; i++) expect((await day(addDays(LAST, -(i % 31)))).status).toBe(200);
    expect((await day(OLD[2] as string, { "accept-encoding": "gzip" })).status).toBe(200);
  });
});

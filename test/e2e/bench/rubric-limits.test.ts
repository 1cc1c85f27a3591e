import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearOfWindowEnd } from "../../helpers/clock-window.ts";
import { runPicks, type Started, startPicksServer } from "../../helpers/processes.ts";
import { curateSampleArgs } from "../../helpers/published.ts";

// Regression: 150 PUTs of a maximal rubric made GET answer every version (18.8 MB) and the database
// grow by as much. Now a PUT answers its version, GET pages, old versions are pruned except those a
// stored firm day names, and writes have a per-key rate. A real `picks serve` and `picks curate` on
// one embedded store.

let dir: string;
let env: Record<string, string>;
let server: Started;
let key: string;

// The largest rubric the schema takes: 50 signals of long terms (about 124 KB as JSON).
const MAXIMAL = {
  weights: { A6: 3, A4: 2 },
  signals: Array.from({ length: 50 }, (_, i) => ({
    axis: "A6",
    terms: Array.from({ length: 20 }, (_, j) => `model risk term ${i} ${j} ${"x".repeat(80)}`),
    weight: 2,
  })),
};

const put = (body: unknown) =>
  fetch(`${server.url}/v1/bench/rubric`, {
    method: "PUT",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const get = (query = "") => fetch(`${server.url}/v1/bench/rubric${query}`, { headers: { "x-api-key": key } });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "picks-rubric-limits-"));
  env = { STATE_DIR: join(dir, "state"), STATE_STORE: "", REDIS_URL: "", BENCH_RUBRIC_RATE_LIMIT: "160" };
  const issued = await runPicks(
    [
      "keys",
      "issue",
      "--tier",
      "bench",
      "--firm",
      "acme-bank",
      "--email",
      "o@example.org",
      "--label",
      "r",
      "--json",
    ],
    { ...process.env, ...env },
  );
  expect(issued.code, issued.stderr).toBe(0);
  key = (JSON.parse(issued.stdout) as { key: string }).key;
  server = await startPicksServer(join(dir, "public"), env);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe("bench rubric versions", () => {
  it("answers the new version only, pages the rest, keeps 100 and every version a firm day names", async () => {
    const first = await put({ weights: { A6: 3 } });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ version: 1, weights: { A6: 3 } });
    // A firm day scored under version 1: that version must outlive the pruning.
    const curated = await runPicks(curateSampleArgs(join(dir, "public"), join(dir, "runs"), "2026-11-19"), {
      ...process.env,
      ...env,
    });
    expect(curated.code, curated.stderr).toBe(0);

    let size = 0;
    for (let i = 2; i <= 150; i++) {
      const answer = await put(MAXIMAL);
      expect(answer.status).toBe(200);
      const text = await answer.text();
      size = Math.max(size, text.length);
      expect((JSON.parse(text) as { version: number }).version).toBe(i);
    }
    // One version per answer, not the history: about the size of the rubric itself.
    expect(size).toBeLessThan(200_000);

    const versions: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    let largest = 0;
    do {
      const answer = await get(cursor === null ? "" : `?cursor=${cursor}`);
      expect(answer.status).toBe(200);
      const text = await answer.text();
      largest = Math.max(largest, text.length);
      const page = JSON.parse(text) as {
        current: { version: number };
        versions: Array<{ version: number }>;
        next_cursor: string | null;
      };
      expect(page.current.version).toBe(150);
      expect(page.versions.length).toBeLessThanOrEqual(20);
      versions.push(...page.versions.map((version) => version.version));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 20);
    expect(versions).toEqual([...Array.from({ length: 100 }, (_, i) => 150 - i), 1]);
    expect(pages).toBe(6);
    expect(largest).toBeLessThan(21 * 200_000);
    // 101 versions of 124 KB, plus the firm's day: far below the 19 MB that 150 kept versions added.
    expect((await stat(join(dir, "state", "picks.db"))).size).toBeLessThan(16 * 1024 * 1024);
    expect((await get("?cursor=abc")).status).toBe(422);
  }, 120_000);

  it("has a per-key rate on writes, with Retry-After and the RateLimit headers", async () => {
    // 150 versions were written above, within this hour's window unless it just turned: the
    // RateLimit header says how many are left either way (the limit is 160). The hour is a fixed window
    // of the server's real clock: it must not end between this write and the 429 expected.
    await clearOfWindowEnd(3600, 15_000);
    const first = await put({ weights: { A1: 2 } });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe('"bench-rubric";q=160;w=3600');
    const left = Number(/;r=(\d+);/.exec(first.headers.get("ratelimit") ?? "")?.[1]);
    expect(left).toBeLessThanOrEqual(159);
    for (let i = 0; i < left; i++) expect((await put({ weights: { A1: 2 } })).status).toBe(200);
    const refused = await put({ weights: { A1: 2 } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-policy")).toBe('"bench-rubric";q=160;w=3600');
    expect(refused.headers.get("ratelimit")).toMatch(/^"bench-rubric";r=0;t=\d+$/);
    expect(await refused.json()).toEqual({ detail: expect.stringMatching(/^Too many rubric versions/) });
    expect(((await (await get()).json()) as { current: { version: number } }).current.version).toBe(
      151 + left,
    );
  }, 60_000);
});

describe("malformed input on the bench routes is a 4xx, never a 500", () => {
  const putWatchlist = (body: string) =>
    fetch(`${server.url}/v1/bench/watchlist`, {
      method: "PUT",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body,
    });

  it("refuses a watched paper with a malformed percent escape as not an arXiv id", async () => {
    const answer = await putWatchlist(JSON.stringify({ papers: ["https://arxiv.org/abs/%E0%A4%A"] }));
    expect(answer.status).toBe(422);
    const { detail } = (await answer.json()) as { detail: Array<{ loc: unknown[]; input: unknown }> };
    expect(detail[0]).toMatchObject({ loc: ["body", "papers", 0], input: "https://arxiv.org/abs/%E0%A4%A" });
  });

  it("refuses a body nested 40,000 deep as FastAPI does (its RecursionError), while scanning it", async () => {
    const deep = `{"papers":[],"terms":${"[".repeat(40_000)}${"]".repeat(40_000)}}`;
    const answer = await putWatchlist(deep);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ detail: "There was an error parsing the body" });
  });
});

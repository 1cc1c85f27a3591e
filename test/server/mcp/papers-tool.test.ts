import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaperListItem } from "../../../pipeline/domain/api-answers.ts";
import { PapersQuerySchema, queryPapers } from "../../../pipeline/domain/papers-query.ts";
import { listItem } from "../../../pipeline/domain/picks-index.ts";
import type { DailySnapshot } from "../../../pipeline/domain/snapshot.ts";
import { PAGE_MAX } from "../../../server/mcp/papers-tool.ts";
import { type Connected, connectInMemory } from "./mcp-clients.ts";
import { publishYear } from "./year-site.ts";

const LAST = "2026-11-20";
let publicDir: string;
let days: Array<{ date: string; picks: PaperListItem[] }>;
let newestDay: DailySnapshot;
let mcp: Connected;

beforeAll(async () => {
  publicDir = join(await mkdtemp(join(tmpdir(), "picks-mcp-papers-")), "public");
  const year = await publishYear({ publicDir, days: 40, lastDate: LAST, picksPerDay: 6 });
  newestDay = year.days[0] as DailySnapshot;
  days = year.days.map((day) => ({ date: day.date, picks: day.picks.map(listItem) }));
  mcp = await connectInMemory(publicDir);
});
afterAll(async () => {
  await mcp.close();
});

/** Follows next_cursor to the end and returns every pick id in order, checking each page on the way. */
async function allPages(
  args: Record<string, unknown>,
): Promise<{ ids: string[]; total: number; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let total = -1;
  let pages = 0;
  do {
    const result = await mcp.call("labs_papers", cursor === null ? args : { ...args, cursor });
    expect(result.isError, result.text).toBeFalsy();
    const page = result.structuredContent as {
      total: number;
      returned: number;
      has_more: boolean;
      offset: number;
    };
    const picks = (result.structuredContent as { picks: Array<{ arxiv_id: string }> }).picks;
    expect(page.offset).toBe(ids.length);
    expect(page.returned).toBe(picks.length);
    if (total === -1) total = page.total;
    expect(page.total).toBe(total);
    ids.push(...picks.map((pick) => pick.arxiv_id));
    expect(page.has_more).toBe(ids.length < total);
    cursor = (result.structuredContent as { next_cursor: string | null }).next_cursor;
    pages += 1;
  } while (cursor !== null);
  return { ids, total, pages };
}

describe("labs_papers: the filters and semantics of GET /v1/papers", () => {
  it.each([
    [{}],
    [{ days: 3 }],
    [{ days: 40, min_score: 14 }],
    [{ days: 40, axis: "A6", min_score: 2 }],
    [{ days: 30, axis: "A9", min_score: 1, min_reg_fit: 2 }],
    [{ days: 3650, min_reg_fit: 3 }],
  ])("%j matches queryPapers over the same days, page by page", async (args) => {
    const expected = queryPapers(days, PapersQuerySchema.parse({ ...args, limit: 5000 }), {
      historyDays: null,
      maxLimit: 5000,
    });
    const { ids, total } = await allPages({ ...args, limit: 25 });
    expect(total).toBe(expected.total);
    expect(ids).toEqual(expected.picks.map((pick) => pick.arxiv_id));
  });

  it("is selective on real scores, so the comparisons above mean something", () => {
    const query = (args: object) =>
      queryPapers(days, PapersQuerySchema.parse({ days: 40, limit: 5000, ...args }), {
        historyDays: null,
        maxLimit: 5000,
      }).total;
    const all = query({});
    expect(all).toBe(240);
    for (const filtered of [
      query({ min_score: 14 }),
      query({ axis: "A6", min_score: 2 }),
      query({ min_reg_fit: 3 }),
    ]) {
      expect(filtered).toBeGreaterThan(0);
      expect(filtered).toBeLessThan(all);
    }
  });

  it("answers a small compact page by default, with what was applied", async () => {
    const result = await mcp.call("labs_papers");
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.text)).toEqual(result.structuredContent);
    const page = result.structuredContent as Record<string, unknown> & { picks: Array<{ scores: object }> };
    expect(page.applied).toEqual({
      days: 7,
      axis: null,
      min_score: 0,
      min_reg_fit: 0,
      limit: 8,
      compact: true,
      from: "2026-11-14",
      to: LAST,
      capped: [],
    });
    expect(page).toMatchObject({ total: 42, returned: 8, has_more: true, offset: 0 });
    expect(page.external_content).toMatch(/third-party/);
    expect(JSON.stringify(page.picks)).not.toContain('"evidence"');
  });

  it("gives the evidence with compact: false", async () => {
    const result = await mcp.call("labs_papers", { compact: false, limit: 2 });
    const picks = (result.structuredContent as { picks: DailySnapshot["picks"] }).picks;
    expect(picks).toEqual(newestDay.picks.slice(0, 2));
  });

  it(`lowers a limit above ${PAGE_MAX} and says so`, async () => {
    const result = await mcp.call("labs_papers", { days: 40, limit: 500 });
    const page = result.structuredContent as {
      applied: { limit: number; capped: string[] };
      notes: string[];
    };
    expect(page.applied).toMatchObject({ limit: PAGE_MAX, capped: ["limit"] });
    expect(page.notes.join(" ")).toMatch(/limit lowered to 25/);
  });

  it("keeps a cursor's window when a newer day appears between pages", async () => {
    const first = await mcp.call("labs_papers", { days: 2 });
    const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
    const newest = newestDay;
    const next = {
      ...newest,
      date: "2026-11-21",
      picks: newest.picks.map((p) => ({ ...p, date: "2026-11-21" })),
    };
    await writeFile(join(publicDir, "v1", "daily", "2026-11-21.json"), JSON.stringify(next));
    try {
      const second = await mcp.call("labs_papers", { cursor });
      expect(second.structuredContent).toMatchObject({ offset: 8, total: 12, applied: { to: LAST } });
      const fresh = await mcp.call("labs_papers", { days: 2 });
      expect(fresh.structuredContent).toMatchObject({ applied: { to: "2026-11-21" } });
    } finally {
      await rm(join(publicDir, "v1", "daily", "2026-11-21.json"));
    }
  });
});

describe("labs_papers: mistakes come back as advice", () => {
  it.each([
    [{ axis: "A10" }, "unknown axis `A10`; call labs_axes to see the nine axes A1..A9"],
    [{ days: 0 }, "Expected `days` to be a whole number from 1 to 3650, got `0`"],
    [{ min_reg_fit: 4 }, "Expected `min_reg_fit` to be a whole number from 0 to 3, got `4`"],
    [{ cursor: "bogus" }, /^`cursor` is not one this server issued; pass next_cursor back unchanged/],
    [{ page: 2 }, /^unknown argument `page`; labs_papers takes days, axis/],
  ])("%j", async (args, message) => {
    const result = await mcp.call("labs_papers", args);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.text).toMatch(message);
  });

  it("refuses a cursor with other filters, and takes it with the same ones", async () => {
    const first = await mcp.call("labs_papers", { days: 40, min_score: 10 });
    const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
    const other = await mcp.call("labs_papers", { cursor, days: 3 });
    expect(other.isError).toBe(true);
    expect(other.text).toMatch(
      /^this cursor continues a query with days 40, min_score 10, min_reg_fit 0, not the days/,
    );
    const same = await mcp.call("labs_papers", { cursor, days: 40, min_score: 10, axis: null });
    expect(same.isError, same.text).toBeFalsy();
    expect(same.structuredContent).toMatchObject({ offset: 8, applied: { days: 40, min_score: 10 } });
  });

  it("refuses a cursor whose day is gone", async () => {
    const first = await mcp.call("labs_papers", { days: 3 });
    const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
    const path = join(publicDir, "v1", "daily", `${LAST}.json`);
    await rm(path);
    try {
      const result = await mcp.call("labs_papers", { cursor });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/this cursor's pages end on \(2026-11-20\) is no longer published/);
    } finally {
      await writeFile(path, JSON.stringify(days[0]));
    }
  });

  it("says when an axis threshold cannot match", async () => {
    const result = await mcp.call("labs_papers", { axis: "A1", min_score: 6 });
    expect(result.structuredContent).toMatchObject({
      total: 0,
      notes: [expect.stringMatching(/above the axis maximum/)],
    });
  });
});

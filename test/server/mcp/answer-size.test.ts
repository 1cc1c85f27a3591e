import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pick } from "../../../pipeline/domain/pick.ts";
import { ANSWER_BUDGET_CHARS } from "../../../server/mcp/papers-page.ts";
import { PAGE_DEFAULT } from "../../../server/mcp/papers-tool.ts";
import { type Connected, connectInMemory } from "./mcp-clients.ts";
import { publishYear } from "./year-site.ts";

// Tokens estimated at four characters each, on the text a client hands the model.
const tokens = (text: string) => Math.ceil(text.length / 4);
// 8,000 since labs_papers took `scope` (tools/list went from about 7,480 to 7,680 tokens): a fifth
// under the 10,000 some clients allow.
const WELL_UNDER = 8_000;

let mcp: Connected;
let picks: Pick[];

beforeAll(async () => {
  const publicDir = join(await mkdtemp(join(tmpdir(), "picks-mcp-size-")), "public");
  // Every day holds the eight largest real picks, so each page is as large as real data makes it.
  ({ picks } = await publishYear({
    publicDir,
    days: 20,
    lastDate: "2026-11-20",
    picksPerDay: 8,
    largest: true,
  }));
  mcp = await connectInMemory(publicDir);
});
afterAll(async () => {
  await mcp.close();
});

describe("the largest answers stay well under 10k tokens", () => {
  it.each([true, false])("labs_papers with compact: %s and the largest limit", async (compact) => {
    const result = await mcp.call("labs_papers", { days: 3650, limit: 5000, compact });
    expect(result.isError, result.text).toBeFalsy();
    expect(result.text.length).toBeLessThanOrEqual(ANSWER_BUDGET_CHARS);
    expect(tokens(result.text)).toBeLessThan(WELL_UNDER);
    const page = result.structuredContent as { returned: number; total: number; notes: string[] };
    expect(page.total).toBe(160);
    expect(page.returned).toBeGreaterThanOrEqual(compact ? 7 : 2);
    expect(page.notes).toContainEqual(expect.stringMatching(/^page ended after \d+ picks/));
  });

  it("labs_papers keeps every page under the budget to the last one, in full mode", async () => {
    let cursor: string | null = null;
    let seen = 0;
    do {
      const args: Record<string, unknown> = { days: 3650, limit: 25, compact: false };
      const result = await mcp.call("labs_papers", cursor === null ? args : { ...args, cursor });
      expect(result.text.length).toBeLessThanOrEqual(ANSWER_BUDGET_CHARS);
      const page = result.structuredContent as { returned: number; next_cursor: string | null };
      expect(page.returned).toBeGreaterThan(0);
      seen += page.returned;
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toBe(160);
  });

  it(`labs_papers' default page of ${PAGE_DEFAULT} compact picks`, async () => {
    const result = await mcp.call("labs_papers");
    expect(tokens(result.text)).toBeLessThan(WELL_UNDER);
  });

  it("labs_paper for the largest pick", async () => {
    const largest = picks.reduce((a, b) => (JSON.stringify(a).length >= JSON.stringify(b).length ? a : b));
    const result = await mcp.call("labs_paper", { arxiv_id: largest.arxiv_id });
    expect(result.isError).toBeFalsy();
    expect(tokens(result.text)).toBeLessThan(WELL_UNDER);
  });

  it.each([{}, { axis: "A8" }, { axis: "REG" }])("labs_axes %j", async (args) => {
    const result = await mcp.call("labs_axes", args);
    expect(result.isError).toBeFalsy();
    expect(tokens(result.text)).toBeLessThan(WELL_UNDER);
  });

  it("tools/list", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tokens(JSON.stringify(tools))).toBeLessThan(WELL_UNDER);
  });
});

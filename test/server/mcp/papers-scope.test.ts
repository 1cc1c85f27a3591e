import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScreenedDay } from "../../../pipeline/domain/screened.ts";
import { TIERS } from "../../../pipeline/domain/tiers.ts";
import { createHostedSnapshots } from "../../../server/mcp/hosted-snapshots.ts";
import { createMcpServer } from "../../../server/mcp/mcp-server.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { DAY_WITHOUT_SCREENED, publishScreenedSite } from "../../helpers/screened-site.ts";
import { type Connected, connectInMemory } from "./mcp-clients.ts";

interface Page {
  applied: { scope?: string; days: number; from: string; to: string; capped: string[] };
  total: number;
  returned: number;
  next_cursor: string | null;
  picks: unknown[];
  screened?: Array<{ arxiv_id: string; date: string; picked: boolean; reason: string; reg_fit: number }>;
}

let publicDir: string;
let screened: Map<string, ScreenedDay>;
let local: Connected;
let cache: SnapshotCache;
let hostedFree: Client;

/** Every screened paper of the days from `from` on, newest day first, in the model's order. */
const expectedFrom = (from: string) =>
  [...screened.values()]
    .filter((day) => day.date >= from)
    .sort((a, b) => (a.date < b.date ? 1 : -1))
    .flatMap((day) => day.papers.map((paper) => `${day.date}#${paper.arxiv_id}`));

beforeAll(async () => {
  const site = await publishScreenedSite();
  ({ publicDir, screened } = site);
  local = await connectInMemory(publicDir);
  // The hosted server's tools over the server's own cache, as a free key's call gets them.
  cache = await createSnapshotCache({ publicDir });
  const server = createMcpServer({
    snapshots: createHostedSnapshots(cache),
    version: "test",
    log: () => {},
    access: { tier: "free", historyDays: TIERS.free.history_days, maxLimit: TIERS.free.max_limit },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  hostedFree = new Client({ name: "research-picks-test", version: "0.0.0" });
  await hostedFree.connect(clientSide);
  await hostedFree.listTools();
}, 60_000);
afterAll(async () => {
  await local.close();
  await hostedFree.close();
  cache.close();
});

async function allPages(call: (args: Record<string, unknown>) => Promise<CallToolResult>, args: object) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let first: Page | undefined;
  do {
    // A cursor alone continues its query: it holds the filters as applied (a capped `days` included).
    const result = await call(cursor === null ? { ...args } : { cursor });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const page = result.structuredContent as unknown as Page;
    first ??= page;
    expect(page.picks).toEqual([]);
    ids.push(...(page.screened ?? []).map((paper) => `${paper.date}#${paper.arxiv_id}`));
    cursor = page.next_cursor;
  } while (cursor !== null);
  return { ids, first: first as Page };
}

describe("labs_papers with scope screened", () => {
  it("pages through every screened paper of the window locally, a day without a file adding none", async () => {
    const { ids, first } = await allPages((args) => local.call("labs_papers", args), {
      scope: "screened",
      days: 30,
      limit: 25,
    });
    expect(first.applied).toMatchObject({ scope: "screened", days: 30, to: "2026-06-12" });
    expect(ids).toEqual(expectedFrom("2026-05-14"));
    expect(ids.some((id) => id.startsWith(DAY_WITHOUT_SCREENED))).toBe(false);
    expect(first.total).toBe(ids.length);
  });

  it("keeps a free key of the hosted server to its seven days", async () => {
    const call = (args: Record<string, unknown>) =>
      hostedFree.callTool({ name: "labs_papers", arguments: args }) as Promise<CallToolResult>;
    const { ids, first } = await allPages(call, { scope: "screened", days: 30 });
    expect(first.applied).toMatchObject({ scope: "screened", days: 7, from: "2026-06-06", capped: ["days"] });
    expect(ids).toEqual(expectedFrom("2026-06-06"));
  });

  it("filters as the picks are filtered, and marks the picks with their reasons", async () => {
    const result = await local.call("labs_papers", { scope: "screened", days: 1, min_reg_fit: 3, limit: 25 });
    const page = result.structuredContent as unknown as Page;
    const day = screened.get("2026-06-12") as ScreenedDay;
    const expected = day.papers.filter((paper) => paper.scores.reg_fit >= 3);
    expect(expected.length).toBeGreaterThan(0);
    expect(page.total).toBe(expected.length);
    expect(page.screened?.map((paper) => [paper.arxiv_id, paper.picked, paper.reason])).toEqual(
      expected.slice(0, 25).map((paper) => [paper.arxiv_id, paper.picked, paper.reason]),
    );
  });

  it("answers a call without scope as before: the picks, no `screened`", async () => {
    const result = await local.call("labs_papers", { days: 30 });
    const page = result.structuredContent as unknown as Page;
    expect(page.applied).not.toHaveProperty("scope");
    expect(page).not.toHaveProperty("screened");
    expect(page.picks.length).toBeGreaterThan(0);
  });

  it("refuses a scope it does not know, and a cursor of the other scope", async () => {
    const bad = await local.call("labs_papers", { scope: "everything" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toBe("Expected `scope` to be one of picks, screened, got `everything`");
    const first = (await local.call("labs_papers", { scope: "screened", days: 30 }))
      .structuredContent as unknown as Page;
    const mixed = await local.call("labs_papers", { scope: "picks", cursor: first.next_cursor });
    expect(mixed.isError).toBe(true);
    expect(mixed.text).toMatch(/^this cursor continues a query with .*scope screened, not the scope given/);
  });
});

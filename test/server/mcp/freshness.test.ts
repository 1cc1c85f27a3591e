import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { publishFixtureDays } from "../../helpers/published.ts";
import { curateDay } from "./curate-day.ts";
import { type Connected, connectInMemory } from "./mcp-clients.ts";

let mcp: Connected | undefined;
afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

describe("freshness: a snapshot curated while the server runs is seen on the next call", () => {
  it("sees a new day in labs_stats, labs_papers and labs_paper without a pause or a restart", async () => {
    const { publicDir, runsDir } = await publishFixtureDays();
    mcp = await connectInMemory(publicDir);
    expect((await mcp.call("labs_stats")).structuredContent).toMatchObject({
      days: 2,
      latest_date: "2026-06-25",
    });

    const { snapshot } = await curateDay(publicDir, runsDir, "2026-06-26");
    expect(snapshot.picks.length).toBeGreaterThan(0);

    expect((await mcp.call("labs_stats")).structuredContent).toMatchObject({
      days: 3,
      latest_date: "2026-06-26",
    });
    const papers = await mcp.call("labs_papers", { days: 1, compact: false, limit: 1 });
    expect(papers.structuredContent).toMatchObject({
      applied: { from: "2026-06-26", to: "2026-06-26" },
      total: snapshot.picks.length,
    });
    expect((papers.structuredContent as { picks: unknown[] }).picks).toEqual(snapshot.picks.slice(0, 1));
    const first = snapshot.picks[0];
    const paper = await mcp.call("labs_paper", { arxiv_id: first?.arxiv_id ?? "" });
    expect(paper.structuredContent).toMatchObject({ picked_on: ["2026-06-26", "2026-06-12"] });
  });

  it("sees the first snapshot in a folder that held none at start", async () => {
    const root = await mkdtemp(join(tmpdir(), "picks-mcp-fresh-"));
    const publicDir = join(root, "public");
    await mkdir(publicDir);
    mcp = await connectInMemory(publicDir);
    expect((await mcp.call("labs_stats")).isError).toBe(true);

    await curateDay(publicDir, join(root, "runs"), "2026-06-12");

    expect((await mcp.call("labs_stats")).structuredContent).toMatchObject({
      days: 1,
      latest_date: "2026-06-12",
    });
    expect((await mcp.call("labs_axes")).isError).toBeFalsy();
  });
});

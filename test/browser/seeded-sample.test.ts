import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCitationRecording } from "../../pipeline/citations/recorded-citations.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import type { Started } from "../helpers/processes.ts";
import { ARTIFACTS, browserPlan, launchChromium } from "./chromium.ts";
import { startSeededSite } from "./site-under-test.ts";

// A fresh clone's first start: `picks serve --seed` curates the sample days offline, their citation
// figures replayed from the recording kept with the sample. The graph must draw, with arcs between
// picks, and every figure must say it was written for the demonstration.

const plan = browserPlan();
const DAYS = ["2026-11-18", "2026-11-19", "2026-11-20"];

let browser: Browser;
let server: Started;
let days: DailySnapshot[];

beforeAll(async () => {
  if (plan.skip) return;
  const seeded = await startSeededSite("picks-seeded-");
  server = seeded.server;
  const { publicDir } = seeded;
  days = await Promise.all(
    DAYS.map(
      async (date) =>
        JSON.parse(await readFile(join(publicDir, "v1", "daily", `${date}.json`), "utf8")) as DailySnapshot,
    ),
  );
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.skipIf(plan.skip)("the sample seeded on a fresh start", () => {
  it("gives every pick citation figures from the recording, marked as illustrative with the day they were written", async () => {
    const recording = await readCitationRecording();
    const picks = days.flatMap((day) => day.picks);
    expect(picks.length).toBeGreaterThan(0);
    for (const pick of picks) {
      expect(pick.citations?.status, pick.arxiv_id).toBe("found");
      if (pick.citations?.status !== "found") continue;
      expect(pick.citations.illustrative).toEqual({ written_at: recording.written_at, note: recording.note });
      expect(pick.citations.fetched_at.slice(0, 10)).toBe(recording.written_at);
    }
    // Links between picks of one day, so the arcs of the graph have something to draw.
    const latest = days.at(-1) as DailySnapshot;
    const ids = new Set(latest.picks.map((pick) => pick.arxiv_id));
    const sameDay = latest.picks.flatMap((pick) =>
      pick.citations?.status === "found" ? pick.citations.cites_picks.filter((id) => ids.has(id)) : [],
    );
    expect(sameDay.length).toBeGreaterThan(0);
  });

  it("draws the latest day's graph with its edges and arcs, and says the figures are sample figures", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    try {
      await page.goto(server.url);
      await page.waitForSelector("html[data-ready=true]");
      await page.locator("#citations").scrollIntoViewIfNeeded();
      await page.waitForSelector("#graph-body svg.graph");
      expect(await page.locator("#graph-body svg .edge").count()).toBeGreaterThan(0);
      expect(await page.locator("#graph-body svg .edge-pick").count()).toBeGreaterThan(0);
      const recording = await readCitationRecording();
      await expect
        .poll(() => page.locator("#graph-body .graph-illustrative").textContent())
        .toContain(`written ${recording.written_at}`);
      const figures = (await page.locator("#pick-list .cite-figures").first().textContent()) ?? "";
      expect(figures).toContain(`sample figures`);
      expect(figures).toContain(`written ${recording.written_at}`);
      await page.locator("#citations").screenshot({ path: join(ARTIFACTS, "seeded-sample-graph.png") });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

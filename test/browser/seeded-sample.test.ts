import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCitationRecording } from "../../pipeline/citations/recorded-citations.ts";
import { type JsonFeed, likelihoodText } from "../../pipeline/domain/feeds.ts";
import type { RankerCard } from "../../pipeline/domain/ranker-card.ts";
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
let publicDir: string;

beforeAll(async () => {
  if (plan.skip) return;
  const seeded = await startSeededSite("picks-seeded-");
  server = seeded.server;
  ({ publicDir } = seeded);
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

  it("orders each day by must-read likelihood, shown beside the total, and says so once", async () => {
    // The seed curates with the newest model: every pick has its likelihood, and the order follows it.
    for (const day of days) {
      const likelihoods = day.picks.map((pick) => pick.relevance?.must_read ?? -1);
      expect(Math.min(...likelihoods), day.date).toBeGreaterThanOrEqual(0);
      expect(likelihoods, day.date).toEqual([...likelihoods].sort((a, b) => b - a));
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    try {
      await page.goto(server.url);
      await page.waitForSelector("html[data-ready=true]");
      const latest = days.at(-1) as DailySnapshot;
      const shown = await page.$$eval("#pick-list .pick .likelihood", (nodes) =>
        nodes.map((node) => node.textContent),
      );
      expect(shown).toEqual(
        latest.picks.map((pick) => `${likelihoodText(pick.relevance?.must_read ?? 0)} must-read likelihood`),
      );
      expect(await page.$$eval("#pick-list .pick .total", (nodes) => nodes.length)).toBe(latest.picks.length);
      const order = (await page.textContent("#picks-order")) ?? "";
      expect(order).toMatch(
        /^Ordered by must-read likelihood: the relevance model's chance, learned from expert labels,/,
      );
      expect(order).toContain("The rubric total says which axes a paper serves");
      expect(await page.locator("#pick-list details.why-ranked").count()).toBe(latest.picks.length);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows the ranker card's reliability table, its calibration error and the model it replaced", async () => {
    const card = JSON.parse(await readFile(join(publicDir, "v1", "ranker.json"), "utf8")) as RankerCard;
    const { calibration, promotion } = card;
    if (!calibration || !promotion) throw new Error("the shipped model has a calibration and a promotion");
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector("html[data-ready=true]");
      await page.locator("#rubric").scrollIntoViewIfNeeded();
      const reliability = page.locator("#ranker-card .ranker-calibration table");
      await reliability.waitFor();
      const rows = await Promise.all(
        (await reliability.locator("tbody tr").all()).map((row) => row.locator("th, td").allTextContents()),
      );
      expect(rows).toEqual(
        calibration.reliability.map((bin) => [
          `${Math.round(bin.from * 100)}% to ${Math.round(bin.to * 100)}%`,
          String(bin.papers),
          bin.mean_predicted === null ? "n/a" : `${(bin.mean_predicted * 100).toFixed(1)}%`,
          bin.observed === null ? "n/a" : `${(bin.observed * 100).toFixed(1)}%`,
        ]),
      );
      expect(await page.textContent("#ranker-card .ranker-ece")).toContain(
        `Expected calibration error: ${calibration.ece.toFixed(3)}`,
      );
      // How sure the picks are: one row a labelled day, then one a selection rule compared.
      const nested = card.nested;
      if (!nested) throw new Error("the shipped model carries its nested figures");
      const tables = page.locator("#ranker-card .ranker-nested table");
      expect(await tables.nth(0).locator("tbody tr").count()).toBe(nested.days.length);
      expect(await tables.nth(1).locator("tbody tr").count()).toBe(nested.selection.length);
      expect(await page.textContent("#ranker-card .ranker-nested")).toContain("no figure is in-sample");
      const replaced = (await page.textContent("#ranker-card .ranker-promotion")) ?? "";
      expect(replaced).toContain(`It replaced ${promotion.replaced}`);
      expect(await page.locator("#ranker-card .ranker-promotion tbody tr").count()).toBe(
        promotion.days.length,
      );
      expect(await page.locator("#ranker-card .ranker-worse li").allTextContents()).toEqual(promotion.worse);
      await page.locator("#ranker-card").screenshot({ path: join(ARTIFACTS, "seeded-ranker-card.png") });
    } finally {
      await context.close();
    }
  });

  it("puts the must-read likelihood beside the total in the feeds", async () => {
    const feed = JSON.parse(await readFile(join(publicDir, "feed.json"), "utf8")) as JsonFeed;
    expect(feed.items.length).toBeGreaterThan(0);
    for (const item of feed.items) {
      const mustRead = item._research_picks.must_read;
      expect(mustRead, item.id).toEqual(expect.any(Number));
      expect(item.summary).toContain(
        `must-read likelihood ${likelihoodText(mustRead ?? 0)}, total ${item._research_picks.total}/45`,
      );
    }
    const atom = await readFile(join(publicDir, "feed.xml"), "utf8");
    expect(atom).toMatch(
      /<summary type="text">Sample data\. Pick #1 of [0-9-]+: must-read likelihood (?:&lt;|&gt;)?\d+%, total/,
    );
  });
});

import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScreenedDay } from "../../pipeline/domain/screened.ts";
import { type Started, startPicksServer } from "../helpers/processes.ts";
import { seriousViolations } from "./axe.ts";
import { browserPlan, launchChromium, watchPages } from "./chromium.ts";
import { type LoopbackServer, publishSite, readScreenedDay, startStaticHost } from "./site-under-test.ts";

// A day's screened view in a real Chromium over the sample days: counted on the day, fetched only
// when opened, every paper not picked in the model's order with its reason, narrowed by the picks'
// filters and searched, and clean for axe-core. On the server and on a plain static host.

declare const document: { documentElement: { dataset: Record<string, string | undefined> } };

const plan = browserPlan();
const DAY = "2026-11-20";

let browser: Browser;
let site: { publicDir: string };
let server: Started;
let staticHost: LoopbackServer;
let screened: ScreenedDay;
const pages = watchPages();

beforeAll(async () => {
  if (plan.skip) return;
  browser = await launchChromium();
  site = await publishSite("2026-11-19");
  screened = await readScreenedDay(site.publicDir, DAY);
  server = await startPicksServer(site.publicDir, { STATE_STORE: "memory", REDIS_URL: "" });
  staticHost = await startStaticHost(site.publicDir);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await staticHost?.close();
});

async function open(base: string): Promise<{ page: Page; paths: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  pages.keep(context);
  const page = await context.newPage();
  const paths: string[] = [];
  page.on("request", (request) => paths.push(new URL(request.url()).pathname));
  page.on("pageerror", (error) => pages.report(`pageerror: ${error.message}`));
  await page.goto(`${base}/?date=${DAY}`);
  await page.waitForSelector("html[data-ready=true]");
  await page.waitForFunction((day) => document.documentElement.dataset.day === day, DAY);
  return { page, paths };
}

const listed = (page: Page) =>
  page.$$eval("#screened-list .screened-item", (items) =>
    items.map((item) => item.getAttribute("data-arxiv-id")),
  );

describe.skipIf(plan.skip)("the screened view of a day", () => {
  it.each([
    "server",
    "static host",
  ])("lists every paper not picked, filters and searches them (%s)", async (host) => {
    const { page, paths } = await open(host === "server" ? server.url : staticHost.url);
    const rest = screened.papers.filter((paper) => !paper.picked);
    expect(rest.length).toBeGreaterThan(5);
    const toggle = page.locator("#screened-toggle");
    expect(await toggle.textContent()).toBe(
      `${screened.counts.screened} screened · ${screened.counts.picked} picked: show the rest`,
    );
    // Not in the first view: the file, the module and the search library wait for the button.
    expect(paths.filter((path) => /screened|minisearch/.test(path))).toEqual([]);

    await toggle.click();
    await page.waitForSelector("#screened-list .screened-item");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await listed(page)).toEqual(rest.map((paper) => paper.arxiv_id));
    const first = rest[0] as ScreenedDay["papers"][number];
    const reason = await page.locator("#screened-list .screened-item .screened-reason").first().textContent();
    expect(reason).toBe(first.reason);

    // The picks' filters, over the screened papers.
    await page.selectOption("#screened-reg", "3");
    const regulated = rest.filter((paper) => paper.scores.reg_fit >= 3).map((paper) => paper.arxiv_id);
    expect(regulated.length).toBeLessThan(rest.length);
    await expect.poll(() => listed(page)).toEqual(regulated);
    await page.selectOption("#screened-reg", "");
    await page.fill("#screened-total", String(first.scores.total + 1));
    await expect
      .poll(() => listed(page))
      .toEqual(
        rest.filter((paper) => paper.scores.total >= first.scores.total + 1).map((paper) => paper.arxiv_id),
      );
    await page.fill("#screened-total", "");

    // The search, over this day's papers: a title's rare word finds its paper.
    const word = (
      first.title.split(/\W+/).filter((term) => term.length >= 6)[0] ?? first.arxiv_id
    ).toLowerCase();
    await page.fill("#screened-q", word);
    await expect.poll(async () => (await listed(page)).includes(first.arxiv_id)).toBe(true);
    expect((await listed(page)).length).toBeLessThanOrEqual(rest.length);

    expect(await seriousViolations(page)).toEqual([]);
  });
});

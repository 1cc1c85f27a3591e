import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Started } from "../helpers/processes.ts";
import { ARTIFACTS, browserPlan, launchChromium, watchPages } from "./chromium.ts";
import { startSeededSite } from "./site-under-test.ts";

// The first screen of the page `npm start` serves (`picks serve --seed`): readers come for the picks,
// so a phone shows the first pick's title and total without scrolling and a desktop the first two
// picks' titles; the range filter waits behind one button and the navigation is one line.

declare const document: { documentElement: { dataset: Record<string, string | undefined> } };
declare const window: {
  scrollY: number;
  axe: { run(context: unknown, options: unknown): Promise<AxeResult> };
};
interface AxeResult {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }>;
}

const require = createRequire(import.meta.url);
const plan = browserPlan();
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

let browser: Browser;
let server: Started;
const pages = watchPages();

beforeAll(async () => {
  if (plan.skip) return;
  ({ server } = await startSeededSite("picks-first-screen-"));
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(viewport: { width: number; height: number }, dark = false, path = "/"): Promise<Page> {
  const context = await browser.newContext({ viewport, colorScheme: dark ? "dark" : "light" });
  pages.keep(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => pages.report(`pageerror: ${error.message}`));
  await page.goto(`${server.url}${path}`);
  await page.waitForSelector("html[data-ready=true]");
  return page;
}

/** Whether the element's whole box lies inside the viewport as the page loaded, unscrolled. */
async function inViewport(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).first().boundingBox();
  const size = page.viewportSize();
  if (!box || !size) return false;
  return box.y >= 0 && box.x >= 0 && box.y + box.height <= size.height && box.x + box.width <= size.width;
}

const title = (rank: number) => `#pick-list > li.pick:nth-child(${rank}) h2`;
const total = (rank: number) => `#pick-list > li.pick:nth-child(${rank}) .total`;

describe.skipIf(plan.skip)("the first screen", () => {
  it.each([
    ["phone", false],
    ["phone", true],
  ] as const)("on a 390 × 844 %s (dark %s) holds the first pick's title and total", async (_, dark) => {
    const page = await open(PHONE, dark);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(await inViewport(page, title(1))).toBe(true);
    expect(await inViewport(page, total(1))).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, `first-screen-phone${dark ? "-dark" : ""}.png`) });
  });

  it.each([
    ["desktop", false],
    ["desktop", true],
  ] as const)("on a 1366 × 900 %s (dark %s) holds the first two picks' titles", async (_, dark) => {
    const page = await open(DESKTOP, dark);
    expect(await inViewport(page, title(1))).toBe(true);
    expect(await inViewport(page, title(2))).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, `first-screen-desktop${dark ? "-dark" : ""}.png`) });
  });

  it("fits the navigation in one line on a phone, every link still reachable", async () => {
    const page = await open(PHONE);
    const tops = await page.$$eval(".site-header nav li", (items) =>
      items.map((item) => Math.round(item.getBoundingClientRect().top)),
    );
    expect(tops.length).toBe(8);
    expect(new Set(tops).size).toBe(1);
    // The last link scrolls into sight when the keyboard reaches it.
    await page.focus(".site-header nav li:last-child a");
    expect(await inViewport(page, ".site-header nav li:last-child a")).toBe(true);
  });

  it("keeps the range filter behind one button, and opens it for a filtered address", async () => {
    const page = await open(PHONE);
    expect(await page.isHidden("#filter-form")).toBe(true);
    await page.click("#filter-toggle");
    expect(await page.isVisible("#filter-from")).toBe(true);
    expect(new URL(page.url()).search).toBe("");
    await page.click("#filter-toggle");
    expect(await page.isHidden("#filter-form")).toBe(true);

    const filtered = await open(PHONE, false, "/?reg=9&axis=Z");
    await filtered.waitForFunction(() => document.documentElement.dataset.view === "filtered");
    expect(await filtered.getAttribute("#filter-toggle", "aria-expanded")).toBe("true");
    const notes = (await filtered.textContent("#filter-notes")) ?? "";
    expect(notes).toContain("Ignored reg=9");
    expect(notes).toContain("Ignored axis=Z");
  });

  it("has no serious or critical axe-core violation on a phone, light and dark, the filter open", async () => {
    const axe = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");
    for (const dark of [false, true]) {
      const page = await open(PHONE, dark);
      await page.click("#filter-toggle");
      await page.evaluate(axe);
      const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
      const serious = result.violations
        .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
        .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" "))}`);
      expect(serious, dark ? "dark" : "light").toEqual([]);
    }
  });
});

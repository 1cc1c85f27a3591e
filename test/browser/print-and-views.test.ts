import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import type { Started } from "../helpers/processes.ts";
import { seriousViolations } from "./axe.ts";
import { ARTIFACTS, browserPlan, keepToOrigin, launchChromium, watchPages } from "./chromium.ts";
import { publishSite, servePage } from "./site-under-test.ts";

// What the other browser suites leave out: one day printed (print media, a PDF kept under
// test-results/browser/), the screenshots kept there for desktop, phone and dark mode, axe-core on the
// archive, the playground and the API reference the page links to, and a day whose snapshot is not
// JSON. Every request that leaves the server's origin is aborted and fails the test.

interface PageElement {
  id: string;
  tagName: string;
  textContent: string | null;
}
declare const document: {
  documentElement: PageElement & { dataset: Record<string, string | undefined> };
  body: PageElement;
  activeElement: PageElement | null;
};
declare const window: {
  getComputedStyle(element: unknown): {
    backgroundColor: string;
    color: string;
    outlineStyle: string;
    outlineWidth: string;
    scrollBehavior: string;
  };
};

const plan = browserPlan();
const CITED_DAY = "2026-11-19";

let browser: Browser;
let site: { publicDir: string; days: DailySnapshot[] };
let server: Started;
const pages = watchPages();

beforeAll(async () => {
  if (plan.skip) return;
  browser = await launchChromium();
  site = await publishSite(CITED_DAY);
  server = await servePage(site.publicDir);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(
  path = "/",
  options: { width?: number; height?: number; dark?: boolean; ready?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    colorScheme: options.dark ? "dark" : "light",
  });
  pages.keep(context);
  const origin = new URL(server.url).origin;
  await keepToOrigin(context, origin, pages.report);
  const page = await context.newPage();
  page.on("pageerror", (error) => pages.report(`pageerror: ${error.message}`));
  await page.goto(`${server.url}${path}`);
  if (options.ready !== false) await page.waitForSelector("html[data-ready=true]");
  return page;
}

const day = (date: string): DailySnapshot => {
  const found = site.days.find((entry) => entry.date === date);
  if (!found) throw new Error(`no sample day ${date}`);
  return found;
};

/** Width and height from a PNG's header. */
async function pngSize(path: string): Promise<{ width: number; height: number }> {
  const bytes = await readFile(path);
  expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe.skipIf(plan.skip)("one day, printed", () => {
  it("prints the day's picks on white, without the navigation, forms and figures", async () => {
    // Dark mode on screen: the print must still come out dark text on white.
    const page = await open(`/?date=${CITED_DAY}`, { dark: true });
    const screenBackground = await page.evaluate(
      () => window.getComputedStyle(document.body).backgroundColor,
    );
    expect(screenBackground).not.toBe("rgb(255, 255, 255)");
    await page.emulateMedia({ media: "print" });

    const hidden = [
      ".site-header nav",
      ".skip-link",
      "#day-form",
      "#filter-toggle",
      "#filter-form",
      "#search",
      "#citations",
      "#figures",
      "#rubric",
      "#leaderboard",
      "#playground",
      "#get-key",
      ".site-footer",
    ];
    for (const selector of hidden) expect(await page.isVisible(selector), selector).toBe(false);
    const picks = day(CITED_DAY).picks;
    const titles = page.locator("#pick-list .pick h2");
    expect(await titles.allTextContents()).toEqual(picks.map((pick) => pick.title));
    for (const title of await titles.all()) expect(await title.isVisible()).toBe(true);
    expect(await page.isVisible("#day-title")).toBe(true);
    // Each score's evidence is printed, although its details are closed on screen.
    const first = picks[0] as DailySnapshot["picks"][number];
    const evidence = page.locator("#pick-list .pick:first-child details.why q").first();
    expect(await evidence.isVisible()).toBe(true);
    expect(
      await page.isVisible(`#pick-list .pick:first-child >> text=${first.scores.reg_fit.rationale}`),
    ).toBe(true);
    // The links are printed with their addresses.
    const after = await page.$eval(
      "#pick-list .pick:first-child .links a",
      (anchor) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown, p: string): { content: string } }
        ).getComputedStyle(anchor, "::after").content,
    );
    expect(after).toBe(`" (${first.abs_url})"`);
    const colours = await page.evaluate(() => {
      const style = window.getComputedStyle(document.body);
      return { background: style.backgroundColor, text: style.color };
    });
    expect(colours).toEqual({ background: "rgb(255, 255, 255)", text: "rgb(0, 0, 0)" });
    // No dark background anywhere in what prints (the score bars' coloured fills apart), and no light
    // text: the screen's dark scheme must not leak into the print.
    const darkParts = await page.$$eval("body *", (nodes) => {
      const view = globalThis as unknown as {
        getComputedStyle(element: unknown): { backgroundColor: string; color: string };
      };
      const luminance = (colour: string) => {
        const [r = 0, g = 0, b = 0, a = 1] = (colour.match(/[\d.]+/g) ?? []).map(Number);
        return { value: (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255, alpha: a };
      };
      const found: string[] = [];
      for (const node of nodes) {
        if (node.getClientRects().length === 0 || node.matches(".fill, .fill *")) continue;
        const style = view.getComputedStyle(node);
        const name = `${node.tagName.toLowerCase()}.${node.getAttribute("class") ?? ""}`;
        const background = luminance(style.backgroundColor);
        if (background.alpha > 0 && background.value < 0.6) found.push(`${name} on ${style.backgroundColor}`);
        if (luminance(style.color).value > 0.6) found.push(`${name} in ${style.color}`);
      }
      return found;
    });
    expect(darkParts).toEqual([]);

    await page.screenshot({ path: join(ARTIFACTS, "day-print.png"), fullPage: true });
    const pdf = join(ARTIFACTS, "day-print.pdf");
    await rm(pdf, { force: true });
    await page.pdf({ path: pdf, format: "A4", printBackground: true });
    const bytes = await readFile(pdf);
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const pages = bytes.toString("latin1").match(/\/Type\s*\/Page[^s]/g) ?? [];
    expect(pages.length).toBeGreaterThan(0);
    // The day's picks with their evidence (about two A4 pages each), not the page's forms and figures.
    expect(pages.length).toBeLessThanOrEqual(picks.length * 3);
  });
});

describe.skipIf(plan.skip)("screenshots and axe-core beyond the main view", () => {
  it("keeps desktop, phone and dark screenshots of the day under test-results/", async () => {
    for (const [name, options] of [
      ["day-desktop", { width: 1280, height: 900 }],
      ["day-phone", { width: 390, height: 844 }],
      ["day-dark", { width: 1280, height: 900, dark: true }],
    ] as const) {
      const path = join(ARTIFACTS, `${name}.png`);
      await rm(path, { force: true });
      const page = await open(`/?date=${CITED_DAY}`, options);
      await page.screenshot({ path, fullPage: true });
      expect((await stat(path)).size, name).toBeGreaterThan(10_000);
      const size = await pngSize(path);
      expect(size.width, name).toBe(options.width);
      expect(size.height, name).toBeGreaterThan(options.height);
    }
    // Dark mode is dark: the first pixel row of the dark screenshot is not the light page's.
    const [light, dark] = await Promise.all(
      ["day-desktop", "day-dark"].map((name) => readFile(join(ARTIFACTS, `${name}.png`))),
    );
    expect(Buffer.compare(light as Buffer, dark as Buffer)).not.toBe(0);
  });

  it("has no serious or critical violation on the archive and the playground", async () => {
    // The archive: an older day, with the archive search open on a query.
    const archive = await open("/?date=2026-11-18");
    await archive.focus("#search-input");
    await archive.waitForSelector("#search-input[data-ready=true]");
    await archive.fill("#search-input", "agent");
    await archive.waitForSelector(".search-hit");
    expect(await seriousViolations(archive)).toEqual([]);
    await archive.screenshot({ path: join(ARTIFACTS, "archive.png"), fullPage: true });

    // The playground with a verdict shown.
    const playground = await open("/#playground");
    await playground.click("#verify-example");
    await playground.click("#verify-submit");
    await playground.waitForSelector("#verify-result .verdict");
    expect(await seriousViolations(playground)).toEqual([]);
  });

  it("has no serious or critical violation on the API reference the page links to", async () => {
    const main = await open("/");
    const docs = main.locator("a[href='v1/docs']");
    expect(await docs.count()).toBe(1);
    await Promise.all([main.waitForURL(`${server.url}/v1/docs`), docs.click()]);
    await main.waitForSelector(".swagger-ui .opblock");
    expect(await seriousViolations(main)).toEqual([]);
    await main.screenshot({ path: join(ARTIFACTS, "api-reference.png") });
  });
});

describe.skipIf(plan.skip)("focus and motion", () => {
  it("shows where the keyboard is at every stop, and scrolls smoothly only for who has not asked for less", async () => {
    for (const reducedMotion of ["reduce", "no-preference"] as const) {
      const page = await open("/");
      await page.emulateMedia({ reducedMotion });
      expect(
        await page.evaluate(() => window.getComputedStyle(document.documentElement).scrollBehavior),
      ).toBe(reducedMotion === "reduce" ? "auto" : "smooth");
      if (reducedMotion === "no-preference") continue;
      const stops: string[] = [];
      for (let step = 0; step < 30; step++) {
        await page.keyboard.press("Tab");
        const stop = await page.evaluate(() => {
          const active = document.activeElement;
          if (!active || active === document.body) return null;
          const style = window.getComputedStyle(active);
          const name = `${active.tagName.toLowerCase()}#${active.id} ${active.textContent?.trim().slice(0, 20) ?? ""}`;
          return { name, outline: `${style.outlineStyle} ${style.outlineWidth}` };
        });
        if (!stop) continue;
        stops.push(stop.name);
        expect(stop.outline, stop.name).toBe("solid 3px");
      }
      // Past the header and the day picker, to the filter's button (the filter itself opens from it).
      expect(stops.some((name) => name.startsWith("button#filter-toggle"))).toBe(true);
    }
  });
});

describe.skipIf(plan.skip)("a snapshot that is not JSON", () => {
  it("shows a message, not a blank list", async () => {
    const context = await browser.newContext();
    pages.keep(context);
    await context.route("**/v1/daily/2026-11-18*", (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: '{"date":"2026-11-18","picks":[' }),
    );
    const page = await context.newPage();
    page.on("pageerror", (error) => pages.report(`pageerror: ${error.message}`));
    await page.goto(`${server.url}/?date=2026-11-18`);
    await page.waitForSelector("html[data-ready=true]");
    const text = (await page.textContent("#pick-list")) ?? "";
    expect(text).toContain("Could not load these picks.");
    expect(await page.locator("#pick-list a", { hasText: "Show the latest day" }).count()).toBe(1);
  });
});

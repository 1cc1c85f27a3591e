import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import type { Started } from "../helpers/processes.ts";
import {
  ARTIFACTS,
  browserPlan,
  keepToOrigin,
  launchChromium,
  reportPageErrors,
  watchPages,
} from "./chromium.ts";
import { type LoopbackServer, publishSite, servePage, startStaticHost } from "./site-under-test.ts";

// The reader's page in a real Chromium over the three sample days (one pick with citation figures):
// filters that agree with GET /v1/papers and live in the address, the archive search, the citation
// graph, the figures, accessibility (axe-core run in the page) and the first view's weight. Every
// request that leaves the server's origin is aborted and fails the test.

declare const document: {
  documentElement: { dataset: Record<string, string | undefined> };
  activeElement: { id: string } | null;
  getElementById(id: string): { textContent: string | null; dataset: Record<string, string> } | null;
};
declare const window: {
  __pwned?: unknown;
  axe: { run(context: unknown, options: unknown): Promise<AxeResult> };
};
interface AxeResult {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }>;
}

const plan = browserPlan();
const CITED_DAY = "2026-11-19";
const require = createRequire(import.meta.url);

let browser: Browser;
let site: { publicDir: string; days: DailySnapshot[] };
let server: Started;
let staticHost: LoopbackServer;
let key: string;
const pages = watchPages();

beforeAll(async () => {
  if (plan.skip) return;
  browser = await launchChromium();
  site = await publishSite(CITED_DAY);
  server = await servePage(site.publicDir);
  staticHost = await startStaticHost(site.publicDir);
  const issued = await fetch(`${server.url}/v1/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "reader@example.org", label: "browser filters" }),
  });
  key = ((await issued.json()) as { key: string }).key;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await staticHost?.close();
});

interface Opened {
  page: Page;
  /** Every same-origin path the page asked for, in order, with the bytes that came back. */
  requests: Array<{ path: string; bytes: number }>;
}

async function open(
  base: string,
  path = "/",
  options: { width?: number; height?: number; dark?: boolean } = {},
): Promise<Opened> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    colorScheme: options.dark ? "dark" : "light",
  });
  pages.keep(context);
  const origin = new URL(base).origin;
  const requests: Opened["requests"] = [];
  await keepToOrigin(context, origin, pages.report);
  const page = await context.newPage();
  page.on("response", async (response) => {
    const url = new URL(response.url());
    if (url.origin !== origin) return;
    const body = await response.body().catch(() => Buffer.alloc(0));
    requests.push({ path: `${url.pathname}${url.search}`, bytes: body.byteLength });
  });
  reportPageErrors(page, pages.report);
  await page.goto(`${base}${path}`);
  await page.waitForSelector("html[data-ready=true]");
  return { page, requests };
}

const shown = (page: Page) =>
  page.$$eval("#pick-list .pick", (items) => items.map((item) => item.getAttribute("data-arxiv-id")));

async function waitForFiltered(page: Page, query: string): Promise<void> {
  await page.waitForFunction((expected) => document.documentElement.dataset.filtered === expected, query);
}

async function papers(query: string): Promise<string[]> {
  const answer = await fetch(`${server.url}/v1/papers?${query}&limit=100`, { headers: { "x-api-key": key } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { papers: Array<{ arxiv_id: string }> }).papers.map(
    (pick) => pick.arxiv_id,
  );
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

describe.skipIf(plan.skip)("the picks filters", () => {
  it.each([
    ["axis=A6&min=5&reg=2", "days=3&axis=A6&min_score=5&min_reg_fit=2", "2026-11-18"],
    ["reg=3", "days=3&min_reg_fit=3", "2026-11-18"],
    ["total=16", "days=2&min_score=16", "2026-11-19"],
    ["axis=A1&min=4&total=14", "days=3&axis=A1&min_score=4", "2026-11-18"],
  ])("?%s shows exactly what GET /v1/papers?%s gives over the same days", async (filter, api, from) => {
    const { page } = await open(server.url, `/?from=${from}&to=2026-11-20&${filter}`);
    const query = new URLSearchParams(`from=${from}&to=2026-11-20&${filter}`);
    const canonical = new URLSearchParams();
    for (const name of ["from", "to", "axis", "min", "total", "reg", "group"]) {
      const value = query.get(name);
      if (value !== null) canonical.set(name, value);
    }
    await waitForFiltered(page, canonical.toString());
    let expected = await papers(api);
    // GET /v1/papers has one minimum: the page's second one (total beside an axis) narrows further.
    if (filter.includes("total=14")) {
      const totals = new Map(
        site.days.flatMap((day) => day.picks.map((pick) => [pick.arxiv_id, pick.scores.total])),
      );
      expected = expected.filter((id) => (totals.get(id) ?? 0) >= 14);
    }
    const all = site.days.flatMap((day) => day.picks).length;
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all);
    expect(await shown(page)).toEqual(expected);
  });

  it("puts the form's filters in the address, and Back, Forward and a reload give the same views", async () => {
    const { page } = await open(server.url, "/?date=2026-11-19");
    const dayPicks = await shown(page);
    // The filter is closed on a one-day view and opens from its one button.
    expect(await page.isHidden("#filter-form")).toBe(true);
    expect(await page.getAttribute("#filter-toggle", "aria-expanded")).toBe("false");
    await page.click("#filter-toggle");
    expect(await page.getAttribute("#filter-toggle", "aria-expanded")).toBe("true");
    await page.fill("#filter-from", "2026-11-18");
    await page.fill("#filter-to", "2026-11-20");
    await page.selectOption("#filter-axis", "A6");
    await page.selectOption("#filter-min", "5");
    await page.selectOption("#filter-reg", "2");
    await page.press("#filter-apply", "Enter");
    const query = "from=2026-11-18&to=2026-11-20&axis=A6&min=5&reg=2";
    await waitForFiltered(page, query);
    expect(new URL(page.url()).search).toBe(`?${query}`);
    const filtered = await shown(page);
    expect(filtered).toEqual(await papers("days=3&axis=A6&min_score=5&min_reg_fit=2"));

    await page.selectOption("#filter-group", "governance");
    await page.click("#filter-apply");
    await waitForFiltered(page, `${query}&group=governance`);
    const governance = await shown(page);
    expect(governance.length).toBeLessThan(filtered.length);

    await page.goBack();
    await waitForFiltered(page, query);
    expect(await shown(page)).toEqual(filtered);
    expect(await page.inputValue("#filter-group")).toBe("");
    await page.goBack();
    await page.waitForFunction(() => document.documentElement.dataset.view === "day");
    expect(await shown(page)).toEqual(dayPicks);
    await page.goForward();
    await waitForFiltered(page, query);
    expect(await shown(page)).toEqual(filtered);

    await page.reload();
    await waitForFiltered(page, query);
    expect(await shown(page)).toEqual(filtered);
    expect(await page.inputValue("#filter-axis")).toBe("A6");
  });

  it("drops nonsense values, says so, and shows the defaults", async () => {
    const { page } = await open(server.url, "/?axis=A10&min=lots&reg=9&from=2026-13-01&group=%3Cb%3E");
    await waitForFiltered(page, "from=2026-11-14&to=2026-11-20");
    const notes = (await page.textContent("#filter-notes")) ?? "";
    // A filtered address opens the filter, so the reader sees the defaults it fell back to.
    expect(await page.isVisible("#filter-form")).toBe(true);
    expect(notes).toContain("Ignored axis=A10: expected one of A1 to A9.");
    expect(notes).toContain("Ignored reg=9: expected 1, 2 or 3.");
    expect(notes).toContain("Ignored from=2026-13-01");
    expect(notes).toContain("Ignored group=<b>");
    expect(notes).toContain("fell back to their defaults");
    expect(await page.locator("#filter-notes b").count()).toBe(0);
    expect(await shown(page)).toEqual(await papers("days=7"));
  });
});

describe.skipIf(plan.skip)("the archive search", () => {
  it("loads its index only on focus, and finds a misspelt author, an arXiv id, and markup as text", async () => {
    const { page, requests } = await open(server.url);
    const searchFiles = [
      "/v1/search-index.json",
      "/assets/vendor/minisearch.js",
      "/assets/search-index-codec.js",
    ];
    expect(requests.filter((request) => searchFiles.includes(request.path))).toEqual([]);
    await page.focus("#search-input");
    await page.waitForSelector("#search-input[data-ready=true]");
    expect(requests.filter((request) => request.path === "/v1/search-index.json")).toHaveLength(1);

    await page.fill("#search-input", "Debenedeti");
    await page.waitForFunction(
      () => document.getElementById("search-results")?.dataset.query === "Debenedeti",
    );
    const byAuthor = await page.$$eval(".search-hit", (hits) =>
      hits.map((hit) => hit.getAttribute("data-arxiv-id")),
    );
    expect(byAuthor[0]).toBe("2406.13352");
    expect(Number(await page.getAttribute("#search-results", "data-ms"))).toBeLessThan(50);

    await page.fill("#search-input", "2503.13657");
    await page.waitForFunction(
      () => document.getElementById("search-results")?.dataset.query === "2503.13657",
    );
    expect(await page.getAttribute(".search-hit:first-child", "data-arxiv-id")).toBe("2503.13657");
    await page.click(".search-hit:first-child a");
    await page.waitForFunction(() => document.documentElement.dataset.day === "2026-11-18");

    const markup = '<img src=x onerror="window.__pwned=1">';
    await page.fill("#search-input", markup);
    await page.waitForFunction(
      (query) => document.getElementById("search-results")?.dataset.query === query,
      markup,
    );
    expect(await page.locator("#search img, #search-results img").count()).toBe(0);
    expect(await page.evaluate(() => typeof window.__pwned)).toBe("undefined");
    expect(await page.textContent("#search-status")).toMatch(/match/);
  });
});

describe.skipIf(plan.skip)("the citation graph and the figures", () => {
  it("draws the day's citation graph with its list, and says when a day has none", async () => {
    const { page } = await open(server.url, `/?date=${CITED_DAY}`);
    // Below the fold: graph.js loads when the section comes into view.
    await page.locator("#citations").scrollIntoViewIfNeeded();
    await page.waitForSelector("#graph-body svg.graph");
    const cited = site.days.find((day) => day.date === CITED_DAY)?.picks[0] as DailySnapshot["picks"][number];
    expect(await page.locator("#graph-body svg .node-pick").count()).toBe(1);
    expect(await page.locator("#graph-body svg .node-reference").count()).toBe(1);
    expect(await page.locator("#graph-body svg .node-citing").count()).toBe(1);
    const list = (await page.textContent("#graph-body .graph-list")) ?? "";
    expect(list).toContain(cited.title);
    expect(list).toContain("Attention Is All You Need");
    expect(list).toContain("<b>Bold</b> citing paper");
    expect(await page.locator("#graph-body a[href^='javascript']").count()).toBe(0);

    await page.selectOption("#day-select", "2026-11-18");
    await page.waitForFunction(() => document.documentElement.dataset.day === "2026-11-18");
    expect(await page.textContent("#graph-body")).toContain("This day has no citation data");
  });

  it("draws the figures from stats.json, each with its words", async () => {
    const { page } = await open(server.url, "/#figures");
    // The figures load when their section is seen; the hash scroll alone is not always observed.
    await page.locator("#figures").scrollIntoViewIfNeeded();
    await expect.poll(() => page.locator("#charts-body svg.chart").count(), { timeout: 10_000 }).toBe(11);
    const summaries = await page.$$eval("#charts-body .chart-summary", (nodes) =>
      nodes.map((node) => node.textContent),
    );
    expect(summaries[0]).toMatch(
      /^3 days from Wed,? 18 Nov 2026 to Fri,? 20 Nov 2026: 12 picks kept of \d+ papers screened/,
    );
    expect(summaries[2]).toMatch(/^REG FIT over 12 picks: 0 at 1 .*, 11 at 2 .*, 1 at 3 /);
    for (const svg of await page.locator("#charts-body svg").all()) {
      expect(await svg.getAttribute("role")).toBe("img");
      expect(await svg.getAttribute("aria-labelledby")).toMatch(/svg-title-\d+ svg-desc-\d+/);
    }
  });

  it("says so when stats.json or a day's snapshot cannot be loaded, on a static host", async () => {
    const context = await browser.newContext();
    pages.keep(context);
    await context.route("**/v1/stats.json", (route) => route.fulfill({ status: 500, body: "down" }));
    await context.route("**/v1/daily/latest.json", (route) => route.fulfill({ status: 500, body: "down" }));
    const page = await context.newPage();
    await page.goto(staticHost.url);
    await page.waitForSelector("html[data-ready=true]");
    expect(await page.textContent("#pick-list")).toContain("Could not load these picks.");
    await page.locator("#figures").scrollIntoViewIfNeeded();
    await page.waitForSelector("#charts-body .notice");
    expect(await page.textContent("#charts-body")).toContain("Could not load stats.json");
  });
});

describe.skipIf(plan.skip)("accessibility and weight", () => {
  it("has no serious or critical axe-core violation, in light and dark, on a desktop and a phone", async () => {
    const axe = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");
    for (const [name, options] of [
      ["reader-desktop", {}],
      ["reader-phone", { width: 390, height: 844 }],
      ["reader-dark", { dark: true }],
    ] as const) {
      const { page } = await open(server.url, `/?date=${CITED_DAY}`, options);
      // The range filter is folded away on load: opened, its fields are checked too.
      await page.click("#filter-toggle");
      await page.waitForSelector("#filter-from", { state: "visible" });
      for (const section of ["#citations", "#figures", "#leaderboard"]) {
        await page.locator(section).scrollIntoViewIfNeeded();
      }
      await page.waitForSelector("#graph-body svg.graph");
      await page.waitForSelector("#charts-body svg.chart");
      await page.waitForSelector("#leaderboard-body .notice, #leaderboard-body table");
      await page.evaluate(() =>
        (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
      );
      // Evaluated by the test, not loaded by the page: the page's policy allows no inline script.
      await page.evaluate(axe);
      const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
      const serious = result.violations
        .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
        .map(
          (violation) =>
            `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
        );
      expect(serious, name).toEqual([]);
      await screenshot(page, name);
    }
  });

  it("moves through the filters and the search with the keyboard alone", async () => {
    const { page } = await open(server.url);
    // The filter's button opens it from the keyboard; focus stays on the button, and Tab enters the form.
    await page.focus("#filter-toggle");
    await page.keyboard.press("Enter");
    const order: string[] = [];
    for (let step = 0; step < 16 && order.at(-1) !== "filter-apply"; step++) {
      const id = await page.evaluate(() => document.activeElement?.id ?? "");
      if (id !== order.at(-1)) order.push(id);
      await page.keyboard.press("Tab");
    }
    // A date field takes a Tab per part (day, month, year) before the next field.
    expect(order).toEqual([
      "filter-toggle",
      "filter-from",
      "filter-to",
      "filter-axis",
      "filter-min",
      "filter-total",
      "filter-reg",
      "filter-group",
      "filter-apply",
    ]);
    await page.focus("#search-input");
    await page.keyboard.type("Debenedetti");
    await page.waitForSelector(".search-hit a");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id ?? "")).toBe("");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.documentElement.dataset.day === "2026-11-18");
  });

  it("keeps the first view within 150 KB before the search index", async () => {
    const { requests } = await open(server.url);
    const bytes = requests.reduce((sum, request) => sum + request.bytes, 0);
    process.stderr.write(
      `first view: ${requests.length} requests, ${bytes} bytes\n${requests.map((r) => `  ${r.path} ${r.bytes}`).join("\n")}\n`,
    );
    expect(requests.some((request) => request.path === "/v1/search-index.json")).toBe(false);
    expect(bytes).toBeLessThanOrEqual(150 * 1024);
  });
});

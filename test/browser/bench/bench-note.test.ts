import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildNote } from "../../../pipeline/domain/bench-note.ts";
import { noteHtml, noteMarkdown } from "../../../pipeline/domain/bench-note-render.ts";
import { DEFAULT_FIRM_RUBRIC } from "../../../pipeline/domain/bench-rubric.ts";
import { firmDay } from "../../../pipeline/domain/bench-scoring.ts";
import { weekDays } from "../../../pipeline/domain/bench-week.ts";
import { curateSampleRecords } from "../../helpers/bench-records.ts";
import { ARTIFACTS, browserPlan, launchChromium } from "../chromium.ts";

// The weekly note as a firm opens it: the HTML page and the Markdown text in a real Chromium, built
// from real run records of the sample days plus a hostile title. The note's own address is the only
// one served; any other request (a stylesheet, a font, an image, a script) is aborted and fails the test.

declare const document: {
  title: string;
  body: { innerText: string };
  querySelectorAll(s: string): { length: number };
};
declare const window: { __pwned?: unknown };

const plan = browserPlan();
const ORIGIN = "http://note.invalid";
let browser: Browser;
let pages: { html: string; markdown: string };
const requests: string[] = [];

beforeAll(async () => {
  if (plan.skip) return;
  const records = await curateSampleRecords();
  const views = records.map((record) =>
    firmDay({
      date: record.date,
      publicRubricVersion: record.rubric_version,
      screened: record.candidates.map((c, i) =>
        i === 0
          ? {
              ...c,
              title: `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> *x* [a](http://e.invalid/)`,
            }
          : c,
      ),
      texts: new Map(),
      rubric: { ...DEFAULT_FIRM_RUBRIC, weights: { ...DEFAULT_FIRM_RUBRIC.weights, A6: 3 }, min_total: 0 },
      watchlist: { papers: [], authors: [], terms: [], updated_at: null },
    }),
  );
  const note = buildNote({
    firm: "acme",
    week: "2026-W47",
    days: weekDays("2026-W47") as string[],
    views,
    before: null,
    tracking: [],
    watchedPapers: ["1706.03762"],
    builtAt: "2026-11-23T06:00:00.000Z",
  });
  pages = { html: noteHtml(note), markdown: noteMarkdown(note) };
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function open(path: string, body: string, type: string): Promise<Page> {
  const page = await browser.newPage();
  await page.route("**/*", async (route) => {
    const url = route.request().url();
    if (url === `${ORIGIN}${path}`) return route.fulfill({ status: 200, contentType: type, body });
    requests.push(url);
    return route.abort();
  });
  await page.goto(`${ORIGIN}${path}`);
  await page.waitForLoadState("load");
  return page;
}

describe.skipIf(plan.skip)("the weekly note in Chromium", () => {
  it("HTML: readable sections, the hostile title shown as text, nothing fetched, printable", async () => {
    const page = await open("/note.html", pages.html, "text/html; charset=utf-8");
    const text = await page.evaluate(() => document.body.innerText);
    for (const heading of [
      "Weekly note for acme, 2026-W47",
      "Firm picks",
      "Watched papers: citations",
      "Author and term hits",
      "Public rubric",
    ]) {
      expect(text).toContain(heading);
    }
    expect(text).toContain('<img src=x onerror="window.__pwned=1">');
    expect(text).toMatch(/firm total \d+/);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(await page.evaluate(() => document.querySelectorAll("img, script, link, iframe").length)).toBe(0);
    const pdf = await page.pdf({ format: "A4" });
    expect(pdf.byteLength).toBeGreaterThan(1000);
    await page.screenshot({ path: `${ARTIFACTS}bench-note.png`, fullPage: true });
    expect(requests).toEqual([]);
    await page.close();
  });

  it("Markdown: shown as text with every section, nothing fetched", async () => {
    const page = await open("/note.md", pages.markdown, "text/plain; charset=utf-8");
    const text = await page.evaluate(() => document.body.innerText);
    expect(text.split("\n")[0]).toBe("# Weekly note for acme, 2026-W47");
    for (const heading of [
      "## Firm picks",
      "## Watched papers: citations",
      "## Author and term hits",
      "## Public rubric",
    ]) {
      expect(text).toContain(heading);
    }
    expect(text).toContain("1706.03762: no figures from the citation index this week");
    expect(requests).toEqual([]);
    await page.close();
  });
});

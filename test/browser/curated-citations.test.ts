import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import {
  type FakeReply,
  type FakeUpstream,
  type SeenRequest,
  startFakeUpstream,
  wrappedBody,
} from "../helpers/fake-upstream.ts";
import { runPicks, type Started, startPicksServer } from "../helpers/processes.ts";
import { browserPlan, keepToOrigin, launchChromium } from "./chromium.ts";
import { addPage } from "./site-under-test.ts";

// The citation graph of a day that `picks curate` enriched from Semantic Scholar and OpenAlex, both
// faked on loopback with the recorded bodies of ../shared/fixtures: the page must draw, and list in
// words, what those bodies say. The expected titles and figures are read from the fixture files here.

declare const document: {
  documentElement: { dataset: Record<string, string | undefined> };
  getElementById(id: string): { hasAttribute(name: string): boolean } | null;
};

const plan = browserPlan();
const CITED_DAY = "2026-11-18";
const LATER_DAYS = ["2026-11-19", "2026-11-20"];

interface S2Record {
  paperId: string;
  externalIds: Record<string, unknown>;
  title: string;
  citationCount: number;
  referenceCount: number;
}
interface Linked {
  paperId: string;
  title: string;
}
/** The recorded batch answer: `null` for an unknown id, then three papers. */
const BATCH = wrappedBody<Array<S2Record | null>>("semantic-scholar/paper-batch-4-ids-one-null.json");
const REFERENCES = wrappedBody<{ data: Array<{ citedPaper: Linked }> }>(
  "semantic-scholar/paper-references-page1.json",
).data.map((entry) => entry.citedPaper);
const CITING = wrappedBody<{ data: Array<{ citingPaper: Linked }> }>(
  "semantic-scholar/paper-citations-page1.json",
).data.map((entry) => entry.citingPaper);
const OPENALEX_WORK = wrappedBody<{ results: Array<{ doi: string; cited_by_count: number }> }>(
  "openalex/works-filter-arxiv-preprint.json",
).results[0] as { doi: string; cited_by_count: number; referenced_works_count: number };

/** What the fake index answered for one pick. */
interface Served {
  record: S2Record | null;
  references: Linked[];
}

/**
 * Semantic Scholar's batch, composed from the recordings: the n-th id asked gets the n-th recorded
 * paper (the first one unknown, as recorded), each with the recorded reference and citing pages as its
 * lists; the second paper also cites the third, by the third's own paperId, so two picks are linked.
 */
function s2Batch(served: Map<string, Served>) {
  return (request: SeenRequest): FakeReply => {
    const ids = (JSON.parse(request.body) as { ids: string[] }).ids.map((id) => id.replace(/^ARXIV:/, ""));
    const answer = ids.map((id, index) => {
      const record = BATCH[index % BATCH.length] ?? null;
      const cited = BATCH[(index + 1) % BATCH.length];
      const references =
        index === 1 && cited ? [...REFERENCES, { paperId: cited.paperId, title: cited.title }] : REFERENCES;
      served.set(id, { record, references });
      return record && { ...record, references, citations: CITING };
    });
    return { headers: { "content-type": "application/json" }, body: JSON.stringify(answer) };
  };
}

/** OpenAlex answers each DOI asked with the recorded work, under that DOI. */
function openAlexWorks(request: SeenRequest): FakeReply {
  const dois = (request.query.get("filter") ?? "").replace(/^doi:/, "").split("|");
  const results = dois.map((doi) => ({ ...OPENALEX_WORK, doi: `https://doi.org/${doi}` }));
  return { headers: { "content-type": "application/json" }, body: JSON.stringify({ results }) };
}

// S2 ranks by citation count, then title in code-unit order; the recorded pages carry titles only.
const byTitle = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const top3 = (papers: Linked[]) =>
  papers
    .map((paper) => paper.title)
    .sort(byTitle)
    .slice(0, 3);

let browser: Browser;
let fake: FakeUpstream;
let server: Started;
let publicDir: string;
let day: DailySnapshot;
const served = new Map<string, Served>();

beforeAll(async () => {
  if (plan.skip) return;
  fake = await startFakeUpstream();
  fake.route("POST", "/graph/v1/paper/batch", s2Batch(served));
  fake.route("GET", "/works", openAlexWorks);
  const root = await mkdtemp(join(tmpdir(), "picks-cited-"));
  publicDir = join(root, "public");
  const dirs = ["--out", publicDir, "--runs", join(root, "runs")];
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(S2_|OPENALEX_|LLM_|ARXIV_)/.test(name)),
  );
  // At most as many picks as recorded papers, so no two picks are served the same record.
  const most = ["--max-picks", String(BATCH.length)];
  const cited = await runPicks(["curate", "--source", "sample", "--date", CITED_DAY, ...dirs, ...most], {
    ...env,
    S2_API_URL: `${fake.url}/graph/v1`,
    OPENALEX_URL: fake.url,
  });
  expect(cited.stderr).toBe("");
  expect(cited.code).toBe(0);
  // The later days are curated offline: no citation data, and nothing asked of the fake.
  const asked = fake.requests.length;
  for (const date of LATER_DAYS) {
    expect((await runPicks(["curate", "--source", "sample", "--date", date, ...dirs], env)).code).toBe(0);
  }
  expect(fake.requests).toHaveLength(asked);
  await addPage(publicDir);
  day = JSON.parse(
    await readFile(join(publicDir, "v1", "daily", `${CITED_DAY}.json`), "utf8"),
  ) as DailySnapshot;
  browser = await launchChromium();
  server = await startPicksServer(publicDir, { STATE_STORE: "memory", REDIS_URL: "" });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
});

describe.skipIf(plan.skip)("the citation graph of a day curated against the recorded indexes", () => {
  it("draws and lists the picks' links, references and citing papers, says when a day has none, and draws the figures", async () => {
    const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const origin = new URL(server.url).origin;
    await keepToOrigin(context, origin, (problem) => problems.push(problem));
    const page: Page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    try {
      await page.goto(server.url);
      await page.waitForSelector("html[data-ready=true]");
      expect(await page.evaluate(() => document.documentElement.dataset.day)).toBe(LATER_DAYS.at(-1));
      await page.locator("#citations").scrollIntoViewIfNeeded();
      await page.locator("#graph-body").getByText("This day has no citation data").waitFor();
      expect(await page.locator("#graph-body svg").count()).toBe(0);

      await page.selectOption("#day-select", CITED_DAY);
      await page.waitForFunction(
        (date) =>
          document.documentElement.dataset.day === date &&
          !document.getElementById("pick-list")?.hasAttribute("aria-busy"),
        CITED_DAY,
      );
      await page.waitForSelector("#graph-body svg.graph");

      const ids = [...served.keys()];
      expect(ids).toEqual(day.picks.map((pick) => pick.arxiv_id));
      // One recorded paper each: a repeated one would make two picks the same paper.
      expect(ids.length).toBeGreaterThanOrEqual(3);
      expect(ids.length).toBeLessThanOrEqual(BATCH.length);
      const title = (id: string) => day.picks.find((pick) => pick.arxiv_id === id)?.title as string;
      // Every pick has data: from S2 when it knew the paper, from OpenAlex for the one it did not.
      expect([...served.values()].filter((entry) => entry.record === null)).toHaveLength(1);
      expect(await page.locator("#graph-body svg .node-pick").count()).toBe(ids.length);

      const items = page.locator("#graph-body .graph-list > li");
      expect(
        await items.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-arxiv-id"))),
      ).toEqual(ids);
      const wantReferences = new Set<string>();
      const wantCiting = new Set<string>();
      for (const [id, { record, references }] of served) {
        const item = page.locator(`#graph-body .graph-list > li[data-arxiv-id="${id}"]`);
        const text = (await item.textContent()) ?? "";
        expect(text.startsWith(title(id))).toBe(true);
        if (record === null) {
          expect(text).toContain(
            `(${OPENALEX_WORK.cited_by_count} citations, ${OPENALEX_WORK.referenced_works_count} references)`,
          );
          expect(await item.locator("a").count()).toBe(0);
          continue;
        }
        expect(text).toContain(`(${record.citationCount} citations, ${record.referenceCount} references)`);
        const links = await item
          .locator("a")
          .evaluateAll((anchors) =>
            anchors.map((anchor) => [anchor.textContent, anchor.getAttribute("href")]),
          );
        const expected = [...top3(references), ...top3(CITING)];
        expect(links.map(([name]) => name)).toEqual(expected);
        const urlOf = new Map([...references, ...CITING].map((paper) => [paper.title, paper.paperId]));
        expect(links.map(([, href]) => href)).toEqual(
          expected.map((name) => `https://www.semanticscholar.org/paper/${urlOf.get(name)}`),
        );
        for (const name of top3(references)) wantReferences.add(name);
        for (const name of top3(CITING)) wantCiting.add(name);
      }
      const svgTitles = (kind: string) =>
        page.$$eval(`#graph-body svg .node-${kind} title`, (nodes) => nodes.map((node) => node.textContent));
      expect(new Set(await svgTitles("reference"))).toEqual(wantReferences);
      expect(new Set(await svgTitles("citing"))).toEqual(wantCiting);
      expect(await page.locator("#graph-body svg .edge-reference").count()).toBe(
        [...served.values()].filter((entry) => entry.record).length * 3,
      );

      // The second pick cites the third: one arc in the drawing, and both ends named in the list.
      const [, citer, citedPick] = ids as [string, string, string];
      expect(await page.locator("#graph-body svg .edge-pick").count()).toBe(1);
      expect(await page.textContent(`#graph-body li[data-arxiv-id="${citer}"]`)).toContain(
        `Cites picks: ${title(citedPick)}`,
      );
      expect(await page.textContent(`#graph-body li[data-arxiv-id="${citedPick}"]`)).toContain(
        `Cited by picks: ${title(citer)}`,
      );

      // The figures of the same site, from the stats.json that curate wrote beside the days.
      const stats = JSON.parse(await readFile(join(publicDir, "v1", "stats.json"), "utf8")) as {
        days: number;
        kept: number;
      };
      await page.locator("#figures").scrollIntoViewIfNeeded();
      await expect.poll(() => page.locator("#charts-body svg.chart").count(), { timeout: 10_000 }).toBe(11);
      expect(await page.textContent("#charts-body .chart-summary")).toMatch(
        new RegExp(`^${stats.days} days from .*: ${stats.kept} picks kept of \\d+ papers screened`),
      );
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pick } from "../../pipeline/domain/pick.ts";
import { AXIS_IDS } from "../../pipeline/domain/score.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import type { Started } from "../helpers/processes.ts";
import { seriousViolations } from "./axe.ts";
import { ARTIFACTS, browserPlan, launchChromium, reportPageErrors, watchPages } from "./chromium.ts";
import {
  type LoopbackServer,
  publishSite,
  servePage,
  startRuntimePage,
  startStaticHost,
} from "./site-under-test.ts";

// The page in a real Chromium against a real `picks serve` over the three sample days. Screenshots
// are kept under test-results/browser/ as artifacts of the run.

// The page's globals as the page-side callbacks below use them: those callbacks run in Chromium, and
// the tests are type-checked without the DOM library, so these local declarations stand in for it.
interface PageElement {
  id: string;
  textContent: string | null;
  hasAttribute(name: string): boolean;
}
declare const document: {
  documentElement: { dataset: Record<string, string | undefined>; scrollWidth: number };
  activeElement: PageElement | null;
  getElementById(id: string): PageElement | null;
  querySelector(selector: string): PageElement | null;
};
declare const window: {
  innerWidth: number;
  __pwned?: unknown;
  getComputedStyle(element: unknown): { fontSize: string; fontWeight: string };
};
declare const navigator: { clipboard: { readText(): Promise<string> } };

const plan = browserPlan();
const CITED_DAY = "2026-11-19";

let browser: Browser;
let site: { publicDir: string; days: DailySnapshot[] };
const pages = watchPages();

beforeAll(async () => {
  if (plan.skip) return;
  browser = await launchChromium();
  site = await publishSite(CITED_DAY);
});
afterAll(async () => {
  await browser?.close();
});

async function open(
  base: string,
  path = "/",
  options: { width?: number; height?: number } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    colorScheme: "light",
  });
  pages.keep(context);
  const page = await context.newPage();
  reportPageErrors(page, pages.report);
  await page.goto(`${base}${path}`);
  await page.waitForSelector("html[data-ready=true]");
  return page;
}

const day = (date: string): DailySnapshot => {
  const found = site.days.find((entry) => entry.date === date);
  if (!found) throw new Error(`no sample day ${date}`);
  return found;
};

const titles = (page: Page) =>
  page.$$eval("#pick-list .pick h2", (nodes) => nodes.map((node) => node.textContent));

async function waitForDay(page: Page, date: string): Promise<void> {
  await page.waitForFunction(
    (expected) =>
      document.documentElement.dataset.day === expected &&
      !document.getElementById("pick-list")?.hasAttribute("aria-busy"),
    date,
  );
}

/** Keeps a screenshot as a test artifact: the whole page, or one section of it. */
const screenshot = (page: Page, name: string, section?: string) =>
  section
    ? page.locator(section).screenshot({ path: join(ARTIFACTS, `${name}.png`) })
    : page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

describe.skipIf(plan.skip)("the web page, served by picks serve", () => {
  let server: Started;
  let runtimePage: LoopbackServer;
  beforeAll(async () => {
    runtimePage = await startRuntimePage();
    server = await servePage(site.publicDir, { SUBMIT_ALLOW_LOOPBACK: "1", WORKER_POLL_MS: "100" });
  });
  afterAll(async () => {
    await server?.stop();
    await runtimePage?.close();
  });

  it("shows the latest sample day's picks with their axis bars, REG FIT and arXiv links", async () => {
    const page = await open(server.url);
    const latest = site.days[0] as DailySnapshot;
    const first = latest.picks[0] as DailySnapshot["picks"][number];
    expect(await page.textContent("#day-title")).toContain("20 Nov 2026");
    expect(await titles(page)).toEqual(latest.picks.map((pick) => pick.title));
    expect(await page.isVisible("#sample-banner")).toBe(true);

    const bars = await page.$$eval("#pick-list .pick:first-child .fill", (fills) =>
      fills.map((fill) => ({
        score: Number(fill.getAttribute("data-score")),
        ratio: fill.getBoundingClientRect().width / (fill.parentElement?.getBoundingClientRect().width ?? 1),
      })),
    );
    expect(bars.map((bar) => bar.score)).toEqual(AXIS_IDS.map((id) => first.scores.axes[id].score));
    for (const bar of bars) expect(bar.ratio).toBeCloseTo(bar.score / 5, 2);
    const labels = await page.$$eval("#pick-list .pick:first-child .axis-label", (nodes) =>
      nodes.map((node) => node.textContent),
    );
    expect(labels[0]).toBe("A1 Agent runtime and orchestration");
    expect(await page.textContent("#pick-list .pick:first-child .regfit")).toContain(
      `REG FIT ${first.scores.reg_fit.score} out of 3`,
    );
    expect(await page.textContent("#pick-list .pick:first-child .total")).toContain(`${first.scores.total}`);
    // The rules ranked these days: the total heads each card, with no likelihood and no model to explain.
    expect(await page.locator("#pick-list .likelihood").count()).toBe(0);
    expect(await page.locator("#pick-list details.why-ranked").count()).toBe(0);
    expect(await page.textContent("#picks-order")).toBe(
      "Ordered by the rubric total, then REG FIT: no learned model ranked them, and every pick clears " +
        "the rubric's floor.",
    );
    const why = page.locator("#pick-list .pick:first-child details.why");
    await why.locator("summary").click();
    expect(await why.locator("h4").first().textContent()).toMatch(/^A\d [A-Z][^:]*: \d out of 5\/5$/);
    for (const item of first.scores.axes.A2.evidence) {
      expect(await why.locator("q").allTextContents()).toContain(item.text);
    }
    expect(await why.textContent()).toContain(first.scores.reg_fit.rationale);
    const links = await page.$$eval("#pick-list .pick:first-child .links a", (anchors) =>
      anchors.map((anchor) => anchor.getAttribute("href")),
    );
    expect(links).toEqual([first.abs_url, first.pdf_url]);

    expect(
      await page.$$eval("#day-select option", (options) => options.map((option) => option.value)),
    ).toEqual(site.days.map((entry) => entry.date));
    expect(await page.$$eval("#rubric-groups .axis-card", (cards) => cards.length)).toBe(9);
    // Below the fold: the leaderboard loads when its section comes into view.
    await page.locator("#leaderboard").scrollIntoViewIfNeeded();
    // The "Loading…" notice comes first: wait for the answer itself.
    await page.locator("#leaderboard-body").getByText("No agent runtime has been scored yet").waitFor();
    expect(await page.getAttribute("a[data-snapshot='v1/recent']", "href")).toBe("v1/recent");
    await screenshot(page, "picks-desktop");
  });

  it("navigates the archive with the picker, the buttons, the address and Back", async () => {
    const page = await open(server.url);
    await page.selectOption("#day-select", "2026-11-18");
    await waitForDay(page, "2026-11-18");
    expect(new URL(page.url()).searchParams.get("date")).toBe("2026-11-18");
    expect(await titles(page)).toEqual(day("2026-11-18").picks.map((pick) => pick.title));
    expect(await page.isDisabled("#day-older")).toBe(true);

    await page.click("#day-newer");
    await waitForDay(page, CITED_DAY);
    expect(await titles(page)).toEqual(day(CITED_DAY).picks.map((pick) => pick.title));
    const citations = page.locator("#pick-list .pick:first-child .citations");
    expect(await citations.locator(".cite-figures").textContent()).toMatch(
      /^1234 citations · 56 influential · 78 references \(Semantic Scholar, 21 Nov 2026, 06:00 UTC\)$/,
    );
    expect(await citations.locator("a[href='https://arxiv.org/abs/2406.12045']").count()).toBe(1);
    // A title and url from the citation index stay text: no <b>, no javascript: link.
    const citing = citations.locator("details.linked").first();
    await citing.locator("summary").click();
    expect(await citing.locator("li").textContent()).toBe("<b>Bold</b> citing paper (2026, 3 citations)");
    expect(await citing.locator("li a, li b").count()).toBe(0);

    await page.goBack();
    await waitForDay(page, "2026-11-18");
    expect(await titles(page)).toEqual(day("2026-11-18").picks.map((pick) => pick.title));

    const direct = await open(server.url, `/?date=${CITED_DAY}`);
    expect(await titles(direct)).toEqual(day(CITED_DAY).picks.map((pick) => pick.title));
    expect(await direct.isVisible("#sample-banner")).toBe(true);

    const missing = await open(server.url, "/?date=2025-01-06");
    expect(await missing.textContent("#pick-list")).toBe(
      "Could not load these picks. No snapshot for 2025-01-06 Show the latest day",
    );
  });

  it("blocks a message with a placeholder and marks it in the text, past an emoji", async () => {
    const page = await open(server.url, "/#playground");
    await page.fill("#verify-subject", "");
    await page.click("#verify-submit");
    await page.waitForSelector("#verify-result .notice-error");
    expect(await page.textContent("#verify-result")).toContain(
      "Subject: String should have at least 1 character",
    );
    expect(await page.getAttribute("#verify-subject", "aria-invalid")).toBe("true");

    await page.fill("#verify-subject", "Following up on the pilot");
    // The emoji is one code point but two UTF-16 units: the mark must not slide by one.
    await page.fill("#verify-body", "Hi 👋 {{first_name}},\n\nThanks for the call on Tuesday.\n\nSam");
    await page.fill("#verify-recipient", "priya.raman@example.com");
    await page.click("#verify-submit");
    await page.waitForSelector("#verify-result .verdict");
    expect(await page.getAttribute("#verify-result .verdict", "data-verdict")).toBe("block");
    expect(await page.getAttribute("#verify-subject", "aria-invalid")).toBeNull();
    const marked = await page.$$eval(".marked-message mark", (marks) =>
      marks.map((mark) => mark.textContent),
    );
    expect(marked).toContain("{{first_name}}");
    const finding = page.locator(".findings .finding.status-fail", { hasText: "{{first_name}}" });
    expect(await finding.locator("mark").allTextContents()).toContain("{{first_name}}");
    await screenshot(page, "playground-block", "#playground");
  });

  it("issues a key once with a copy button, and explains a refusal", async () => {
    const page = await open(server.url, "/#get-key");
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    await page.fill("#key-email", "ab");
    await page.fill("#key-label", "browser test");
    await page.click("#key-submit");
    await page.waitForSelector("#key-result .notice-error");
    expect(await page.textContent("#key-result")).toContain(
      "Email: String should have at least 3 characters",
    );

    await page.fill("#key-email", "reader@example.com");
    await page.fill("#key-label", "browser test");
    await page.click("#key-submit");
    await page.waitForSelector("#issued-key");
    const key = await page.inputValue("#issued-key");
    expect(key).toMatch(/^rp_labs_\S{36}$/);
    expect(await page.textContent("#key-result .notice-warning")).toMatch(
      /^Copy it now\. Store this key now/,
    );
    await page.click("#key-result button");
    await page.waitForFunction(() => document.querySelector(".copy-status")?.textContent !== "");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    await page.fill("#key-email", "reader@example.com");
    await page.fill("#key-label", "a second key");
    await page.click("#key-submit");
    await page.waitForSelector("#key-result .notice-error");
    const refusal = await page.textContent("#key-result");
    expect(refusal).toContain("No key this time");
    expect(refusal).toContain("already received a key in the last 24 hours");
    expect(refusal).toMatch(/Try again in about \d+ hours\./);
    expect(await page.locator("#issued-key").count()).toBe(0);
  });

  it("shows a submitted runtime's name as text, never as markup", async () => {
    const name = '<img src=x onerror="window.__pwned=1">';
    const vendor = "<b>Vendor</b> & Co";
    const submitted = await fetch(`${server.url}/v1/score/submit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        runtime_name: name,
        vendor,
        url: `${runtimePage.url}/runtime`,
        description:
          "An agent runtime with sandboxes, tool permissions, human approval and audit logs of every action.",
        contact_email: "submitter@example.com",
      }),
    });
    expect(submitted.status).toBe(202);
    const { submission_id: id } = (await submitted.json()) as { submission_id: number };
    let status = "queued";
    const deadline = Date.now() + 20_000;
    while (!["scored", "failed"].includes(status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = ((await (await fetch(`${server.url}/v1/score/submission/${id}`)).json()) as { status: string })
        .status;
    }
    expect(status).toBe("scored");

    const page = await open(server.url, "/#leaderboard");
    // The leaderboard loads when its section is seen; the hash scroll alone is not always observed.
    await page.locator("#leaderboard").scrollIntoViewIfNeeded();
    await page.waitForSelector("#leaderboard-body table");
    expect(await page.textContent("#leaderboard-body tbody .runtime-name")).toBe(name);
    expect(await page.textContent("#leaderboard-body tbody .vendor")).toBe(vendor);
    expect(await page.getAttribute("#leaderboard-body tbody .runtime-name a", "href")).toBe(
      `${runtimePage.url}/runtime`,
    );
    expect(await page.locator("#leaderboard-body img, #leaderboard-body b").count()).toBe(0);
    expect(await page.evaluate(() => typeof window.__pwned)).toBe("undefined");
    expect(await page.$$eval("#leaderboard-body tbody td[data-score]", (cells) => cells.length)).toBe(9);
    await screenshot(page, "leaderboard", "#leaderboard");
  });

  it("fits a phone screen and starts with a skip link for the keyboard", async () => {
    const page = await open(server.url, "/", { width: 390, height: 844 });
    const [pageWidth, viewWidth] = await page.evaluate(() => [
      document.documentElement.scrollWidth,
      window.innerWidth,
    ]);
    expect(pageWidth).toBeLessThanOrEqual(viewWidth);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to the picks");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    await screenshot(page, "picks-phone", "#picks");
  });
});

describe.skipIf(plan.skip)("the web page, on a plain static host", () => {
  let host: LoopbackServer;
  beforeAll(async () => {
    host = await startStaticHost(site.publicDir);
  });
  afterAll(() => host?.close());

  it("reads the .json files, navigates days, and says what needs the server", async () => {
    const page = await open(host.url);
    expect(await titles(page)).toEqual((site.days[0] as DailySnapshot).picks.map((pick) => pick.title));
    expect(await page.getAttribute("a[data-snapshot='v1/recent']", "href")).toBe("v1/recent.json");
    await page.selectOption("#day-select", "2026-11-18");
    await waitForDay(page, "2026-11-18");
    expect(await titles(page)).toEqual(day("2026-11-18").picks.map((pick) => pick.title));
    await page.locator("#leaderboard").scrollIntoViewIfNeeded();
    await page
      .locator("#leaderboard-body")
      .getByText("The leaderboard is not available right now.")
      .waitFor();

    await page.fill("#verify-subject", "Hello");
    await page.fill("#verify-body", "Hi {{first_name}}");
    await page.fill("#verify-recipient", "jane@example.com");
    await page.click("#verify-submit");
    await page.waitForSelector("#verify-result .notice-error");
    expect(await page.textContent("#verify-result")).toContain(
      "This needs the Research-Picks server (picks serve)",
    );
  });
});

describe.skipIf(plan.skip)("a day the relevance model ranked, on a plain static host", () => {
  const DATE = "2026-11-18";
  let host: LoopbackServer;
  let ranked: DailySnapshot;
  beforeAll(async () => {
    // A copy of the site whose day holds the three kinds of pick a reader can meet: one with its
    // must-read likelihood, one ranked by the model before calibration (no likelihood), and picks of
    // the rules (no relevance at all).
    const root = join(await mkdtemp(join(tmpdir(), "picks-ranked-page-")), "public");
    await cp(site.publicDir, root, { recursive: true });
    const path = join(root, "v1", "daily", `${DATE}.json`);
    ranked = JSON.parse(await readFile(path, "utf8")) as DailySnapshot;
    const why = [
      { term: "agents", contribution: 1.4 },
      { term: "title:guardrails", contribution: 0.6 },
    ];
    const [first, second] = ranked.picks as [Pick, Pick];
    first.relevance = { on_topic: 0.99, top: 0.81, regulated: 0.3, must_read: 0.7212 };
    first.why_ranked = why;
    second.relevance = { on_topic: 0.97, top: 0.6, regulated: 0.2 };
    second.why_ranked = why;
    await writeFile(path, JSON.stringify(ranked));
    host = await startStaticHost(root);
  });
  afterAll(() => host?.close());

  const card = (rank: number) => `#pick-list > li.pick:nth-child(${rank})`;

  it("shows a pick's must-read likelihood beside its total, and none where the model gave none", async () => {
    const page = await open(host.url, `/?date=${DATE}`);
    await waitForDay(page, DATE);
    const first = ranked.picks[0] as Pick;
    expect(await page.textContent(`${card(1)} .likelihood`)).toBe("72% must-read likelihood");
    expect(await page.textContent(`${card(1)} .total`)).toContain(`${first.scores.total}`);
    // Beside the total, with the same weight: the same type, on the same line of a desktop card.
    const style = (selector: string) =>
      page.locator(selector).evaluate((node) => {
        const computed = window.getComputedStyle(node);
        return { size: computed.fontSize, weight: computed.fontWeight };
      });
    expect(await style(`${card(1)} .likelihood .big`)).toEqual(await style(`${card(1)} .total .big`));
    const top = async (selector: string) => (await page.locator(selector).boundingBox())?.y ?? -1;
    expect(Math.abs((await top(`${card(1)} .likelihood`)) - (await top(`${card(1)} .total`)))).toBeLessThan(
      4,
    );
    // No likelihood without one: the model's pick before calibration, and the rules' picks.
    for (const rank of [2, 3]) {
      expect(await page.locator(`${card(rank)} .likelihood`).count()).toBe(0);
      expect(await page.textContent(`${card(rank)} .total`)).toContain(
        `${(ranked.picks[rank - 1] as Pick).scores.total}`,
      );
    }
    const order = page.locator("#picks-order");
    expect(await order.textContent()).toContain("must-read likelihood");
    expect(await order.locator("a").getAttribute("href")).toBe("#ranker-card");
    await screenshot(page, "picks-ranked-desktop", card(1));
  });

  it("puts why_ranked one keyboard step from the title, and passes axe-core with it open", async () => {
    const page = await open(host.url, `/?date=${DATE}`);
    await waitForDay(page, DATE);
    await page.focus(`${card(1)} h2 a`);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Why it ranks #1");
    await page.keyboard.press("Enter");
    const why = page.locator(`${card(1)} details.why-ranked`);
    expect(await why.getAttribute("open")).toBe("");
    const text = (await why.textContent()) ?? "";
    expect(text).toContain("Must-read likelihood 72%");
    expect(text).toContain(
      "heads score it 0.99 on topic, 0.81 must-read and 0.30 fit for regulated settings",
    );
    expect(await why.locator("code").allTextContents()).toEqual(["agents", "title:guardrails"]);
    // Ranked by the model before calibration: why, but no likelihood; ranked by the rules: no why.
    const second = (await page.textContent(`${card(2)} details.why-ranked`)) ?? "";
    expect(second).toContain("Why it ranks #2");
    expect(second).not.toContain("likelihood");
    expect(await page.locator(`${card(3)} details.why-ranked`).count()).toBe(0);

    expect(await seriousViolations(page)).toEqual([]);
  });
});

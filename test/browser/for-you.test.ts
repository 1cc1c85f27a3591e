import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScreenedDay } from "../../pipeline/domain/screened.ts";
import { clearOfWindowEnd } from "../helpers/clock-window.ts";
import { runPicks, type Started } from "../helpers/processes.ts";
import { seriousViolations } from "./axe.ts";
import {
  ARTIFACTS,
  browserPlan,
  keepToOrigin,
  launchChromium,
  reportPageErrors,
  watchPages,
} from "./chromium.ts";
import {
  type LoopbackServer,
  publishSite,
  readScreenedDay,
  servePage,
  startStaticHost,
} from "./site-under-test.ts";

// A reader's part of the page in a real Chromium against `picks serve` over the sample days, keys in a
// SQLite state store the CLI shares: a key entered in the key section brings thumbs on every card and
// the "For you" list (GET /v1/me/picks); a rating changes that list, survives a reload and clears on a
// second press; refusals (a revoked key, the write rate, a paper never screened) are said; without a key
// the page is as before; axe-core finds nothing serious; the keyboard does it all.

declare const document: {
  documentElement: { dataset: Record<string, string | undefined> };
  activeElement: { closest(selector: string): { dataset: Record<string, string> } | null } | null;
};

const plan = browserPlan();
const DAY = "2026-11-20";

let browser: Browser;
let server: Started;
let env: Record<string, string>;
let screened: ScreenedDay;
let staticHost: LoopbackServer;
const pages = watchPages();

async function issue(label: string): Promise<string> {
  const done = await runPicks(
    ["keys", "issue", "--tier", "pro", "--email", "reader@example.org", "--label", label, "--json"],
    { ...process.env, ...env },
  );
  expect(done.code, done.stderr).toBe(0);
  return (JSON.parse(done.stdout) as { key: string }).key;
}

beforeAll(async () => {
  if (plan.skip) return;
  browser = await launchChromium();
  const site = await publishSite("2026-11-19");
  screened = await readScreenedDay(site.publicDir, DAY);
  env = {
    STATE_STORE: "sqlite",
    STATE_DIR: await mkdtemp(join(tmpdir(), "picks-for-you-")),
    REDIS_URL: "",
    LLM_BASE_URL: "",
    VERIFY_LLM_BASE_URL: "",
  };
  server = await servePage(site.publicDir, env);
  staticHost = await startStaticHost(site.publicDir);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await staticHost?.close();
});

interface Opened {
  page: Page;
  paths: string[];
}

async function open(
  path = `/?date=${DAY}`,
  options: { dark?: boolean; width?: number; base?: string } = {},
): Promise<Opened> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 900 },
    colorScheme: options.dark ? "dark" : "light",
  });
  pages.keep(context);
  const base = options.base ?? server.url;
  const origin = new URL(base).origin;
  await keepToOrigin(context, origin, pages.report);
  const page = await context.newPage();
  const paths: string[] = [];
  page.on("request", (request) => paths.push(new URL(request.url()).pathname));
  reportPageErrors(page, pages.report);
  await page.goto(`${base}${path}`);
  await page.waitForSelector("html[data-ready=true]");
  return { page, paths };
}

/** Enters `key` in the key section's "Use your key on this page" form, as a reader would. */
async function enterKey(page: Page, key: string): Promise<void> {
  // The key section's module loads when the section is reached or takes focus.
  await page.focus("#key-email");
  await page.fill("#use-key", key);
  await page.click("#use-key-submit");
  await page.waitForSelector("html[data-reader=ready]");
}

const forYouIds = (page: Page) =>
  page.$$eval("#for-you-list .for-you-item", (items) =>
    items.map((item) => item.getAttribute("data-arxiv-id")),
  );

/** The profile version the For-you list on screen was loaded for. */
const listVersion = (page: Page) => page.evaluate(() => document.documentElement.dataset.forYou ?? "");

const thumb = (scope: string, id: string, rating: 1 | -1) =>
  `${scope} .rating[data-arxiv-id="${id}"] button[data-rating="${rating}"]`;

async function waitForList(page: Page, previous: string): Promise<string> {
  await page.waitForFunction((before) => {
    const now = document.documentElement.dataset.forYou;
    return now !== undefined && now !== before;
  }, previous);
  return listVersion(page);
}

async function profileRatings(key: string): Promise<Array<{ arxiv_id: string; rating: number }>> {
  const answer = await fetch(`${server.url}/v1/me/profile`, { headers: { "x-api-key": key } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { ratings: Array<{ arxiv_id: string; rating: number }> }).ratings;
}

describe.skipIf(plan.skip)("a reader's ratings and For-you list", () => {
  it("without a key shows no thumbs and loads none of their code", async () => {
    const { page, paths } = await open();
    expect(await page.locator("#pick-list li.pick").count()).toBeGreaterThan(0);
    expect(await page.locator(".rating, .list-switch, #for-you").count()).toBe(0);
    expect(paths.filter((path) => /for-you|ratings|reader|use-key/.test(path))).toEqual([]);
  });

  it("enter a key, open For you, rate a card up and down: the list changes, a reload keeps it", async () => {
    const key = await issue("for you");
    const { page } = await open();
    await enterKey(page, key);
    // Thumbs on every pick of the day, none pressed: the profile is empty.
    const picks = await page.$$eval("#pick-list li.pick", (items) =>
      items.map((item) => item.dataset.arxivId),
    );
    expect(await page.locator("#pick-list li.pick .rating").count()).toBe(picks.length);
    expect(await page.locator('#pick-list .rating button[aria-pressed="true"]').count()).toBe(0);

    await page.click('a[href="#picks"]');
    await page.click(".list-switch button:text-is('For you')");
    await waitForList(page, "");
    expect(new URL(page.url()).hash).toBe("#for-you");
    // An empty profile: the day's own order, every paper in it.
    const global = screened.papers.map((paper) => paper.arxiv_id);
    const before = await forYouIds(page);
    expect(before).toEqual(global.slice(0, 20));
    expect(await page.textContent("#for-you-note")).toContain("nothing to rank by yet");

    // A thumbs up on the fifth: the list is refitted on it, and it comes first.
    const liked = before[4] as string;
    let version = await listVersion(page);
    await page.click(thumb("#for-you-list", liked, 1));
    version = await waitForList(page, version);
    const afterLike = await forYouIds(page);
    expect(afterLike[0]).toBe(liked);
    expect(afterLike).not.toEqual(before);
    expect(await page.getAttribute(thumb("#for-you-list", liked, 1), "aria-pressed")).toBe("true");
    expect(await page.textContent("#reader-message")).toContain("Rated “more like this”");
    expect(await page.textContent(`#for-you-list .for-you-item[data-arxiv-id="${liked}"]`)).toContain(
      "#1 for you",
    );

    // Switched to a thumbs down: the profile holds a dislike alone, which fits no model, so the list
    // is the day's own order again, the paper back in fifth place.
    await page.click(thumb("#for-you-list", liked, -1));
    version = await waitForList(page, version);
    const afterDislike = await forYouIds(page);
    expect(afterDislike).toEqual(before);
    expect(afterDislike.indexOf(liked)).toBe(4);
    expect(await page.getAttribute(thumb("#for-you-list", liked, -1), "aria-pressed")).toBe("true");
    expect(await page.getAttribute(thumb("#for-you-list", liked, 1), "aria-pressed")).toBe("false");
    expect(await profileRatings(key)).toEqual([{ arxiv_id: liked, rating: -1 }]);

    // A thumbs up on a pick, from the day's picks: the For-you list, opened again, puts it first.
    const pick = picks.find((id) => id !== before[0] && id !== liked) as string;
    await page.click('.list-switch button:text-is("The day\'s picks")');
    expect(await page.isHidden("#for-you")).toBe(true);
    await page.click(thumb("#pick-list", pick, 1));
    await expect.poll(() => page.getAttribute(thumb("#pick-list", pick, 1), "aria-pressed")).toBe("true");
    await page.click(".list-switch button:text-is('For you')");
    version = await waitForList(page, version);
    const afterPick = await forYouIds(page);
    expect(afterPick[0]).toBe(pick);
    expect(afterPick.indexOf(liked)).toBeGreaterThan(afterPick.indexOf(pick));
    await page.screenshot({ path: join(ARTIFACTS, "for-you.png"), fullPage: true });

    // A reload: the key is kept in the tab, the address opens For you, the thumbs show the ratings.
    await page.reload();
    await page.waitForSelector("html[data-reader=ready]");
    await waitForList(page, "");
    expect(await forYouIds(page)).toEqual(afterPick);
    expect(await page.getAttribute(thumb("#for-you-list", pick, 1), "aria-pressed")).toBe("true");
    expect(await page.getAttribute(thumb("#pick-list", pick, 1), "aria-pressed")).toBe("true");
    expect(await page.getAttribute(thumb("#for-you-list", liked, -1), "aria-pressed")).toBe("true");

    // Pressed again, each rating clears (DELETE): the profile is empty and the list the day's order.
    version = await listVersion(page);
    await page.click(thumb("#for-you-list", pick, 1));
    version = await waitForList(page, version);
    await page.click(thumb("#for-you-list", liked, -1));
    await waitForList(page, version);
    expect(await profileRatings(key)).toEqual([]);
    expect(await forYouIds(page)).toEqual(before);
    expect(await page.locator('.rating button[aria-pressed="true"]').count()).toBe(0);
  });

  it("has no serious or critical axe-core finding in the For-you view, light and dark", async () => {
    const key = await issue("axe");
    for (const dark of [false, true]) {
      // A new browser context each time: the key kept in the tab went with the last one.
      const { page } = await open(`/?date=${DAY}`, { dark, width: 390 });
      await enterKey(page, key);
      await page.click('a[href="#picks"]');
      await page.click(".list-switch button:text-is('For you')");
      await waitForList(page, "");
      if (!dark) {
        // A pressed thumb and a personal list, with the reasons each paper is there.
        const version = await listVersion(page);
        await page.click(thumb("#for-you-list", (await forYouIds(page))[2] as string, 1));
        await waitForList(page, version);
      }
      expect(await page.locator("#for-you-list .why-for-you").count()).toBeGreaterThan(0);
      expect(await seriousViolations(page), dark ? "dark" : "light").toEqual([]);
      await page.screenshot({
        path: join(ARTIFACTS, `for-you-phone${dark ? "-dark" : ""}.png`),
        fullPage: true,
      });
    }
  });

  it("works from the keyboard alone: the switch, a thumb, and focus kept on it as the list reloads", async () => {
    const key = await issue("keyboard");
    const { page } = await open();
    await enterKey(page, key);
    await page.focus(".list-switch button:text-is('For you')");
    await page.keyboard.press("Enter");
    await waitForList(page, "");
    const ids = await forYouIds(page);
    const target = ids[3] as string;
    await page.focus(thumb("#for-you-list", target, 1));
    const version = await listVersion(page);
    await page.keyboard.press("Space");
    await waitForList(page, version);
    expect(await page.getAttribute(thumb("#for-you-list", target, 1), "aria-pressed")).toBe("true");
    // Focus follows the paper to its new place, on the thumb that was pressed.
    const focused = await page.evaluate(() => {
      const group = document.activeElement?.closest(".rating");
      return group ? group.dataset.arxivId : null;
    });
    expect(focused).toBe(target);
    // Tab moves on to the other thumb of the same paper.
    await page.keyboard.press("Tab");
    expect(
      await page.evaluate(() => document.activeElement?.closest(".rating")?.dataset.arxivId ?? null),
    ).toBe(target);
    await page.focus('.list-switch button:text-is("The day\'s picks")');
    await page.keyboard.press("Space");
    expect(await page.isVisible("#pick-list")).toBe(true);
    expect(await page.isHidden("#for-you")).toBe(true);
  });

  it("says why a rating was refused: a revoked key, the write rate, a paper never screened", async () => {
    const revoked = await issue("revoked");
    const { page } = await open();
    await enterKey(page, revoked);
    const first = (await page.getAttribute("#pick-list li.pick", "data-arxiv-id")) as string;
    expect((await runPicks(["keys", "revoke", revoked], { ...process.env, ...env })).code).toBe(0);
    // The server may hold the key for a few seconds after another process revoked it.
    await expect
      .poll(
        async () =>
          (await fetch(`${server.url}/v1/me/profile`, { headers: { "x-api-key": revoked } })).status,
        {
          timeout: 15_000,
          interval: 500,
        },
      )
      .toBe(401);
    await page.click(thumb("#pick-list", first, 1));
    await expect.poll(() => page.textContent("#reader-message")).toContain("Your key was refused");
    expect(await page.textContent("#reader-message")).toMatch(/revoked/);
    expect(await page.getAttribute(thumb("#pick-list", first, 1), "aria-pressed")).toBe("false");
    expect(await page.locator("#reader-message .notice-error").count()).toBe(1);

    // The write rate: 30 profile calls a minute per key, spent here before the reader's press.
    const busy = await issue("rate");
    const second = await open();
    await enterKey(second.page, busy);
    // The rate's minute is a fixed window of the server's real clock: it must not end between the
    // calls that spend it and the press it refuses.
    await clearOfWindowEnd(60, 10_000);
    let status = 0;
    for (let call = 0; call < 40 && status !== 429; call++) {
      status = (await fetch(`${server.url}/v1/me/profile`, { headers: { "x-api-key": busy } })).status;
    }
    expect(status).toBe(429);
    await second.page.click(thumb("#pick-list", first, -1));
    await expect.poll(() => second.page.textContent("#reader-message")).toContain("Too many ratings at once");
    expect(await second.page.textContent("#reader-message")).toMatch(/Try again in \d+ seconds/);
    expect(await second.page.getAttribute(thumb("#pick-list", first, -1), "aria-pressed")).toBe("false");

    // A paper never screened: no card on the page names one, so the server's own 404 for such a paper
    // (asked live) is what a card gets when it is rated.
    const fresh = await issue("not screened");
    const never = await fetch(`${server.url}/v1/me/ratings/2611.99999`, {
      method: "PUT",
      headers: { "x-api-key": fresh, "content-type": "application/json" },
      body: JSON.stringify({ rating: 1 }),
    });
    expect(never.status).toBe(404);
    const body = await never.text();
    const third = await open();
    await enterKey(third.page, fresh);
    await third.page.route(`**/v1/me/ratings/${first}`, (route) =>
      route.fulfill({
        status: 404,
        contentType: "application/json",
        body: body.replace("2611.99999", first),
      }),
    );
    await third.page.click(thumb("#pick-list", first, 1));
    await expect.poll(() => third.page.textContent("#reader-message")).toContain("The rating was not saved");
    expect(await third.page.textContent("#reader-message")).toContain(`${first} was never screened`);
  }, 60_000);

  it("on a static host, says a key needs the server and keeps none", async () => {
    const key = await issue("static");
    const { page } = await open(`/?date=${DAY}`, { base: staticHost.url });
    await page.focus("#key-email");
    await page.fill("#use-key", key);
    await page.click("#use-key-submit");
    await expect.poll(() => page.textContent("#use-key-result")).toContain("The key could not be checked");
    expect(await page.textContent("#use-key-result")).toContain("needs the Research-Picks server");
    expect(await page.getAttribute("#use-key", "aria-invalid")).toBeNull();
    expect(await page.locator(".rating, .list-switch").count()).toBe(0);
    await page.reload();
    await page.waitForSelector("html[data-ready=true]");
    expect(await page.locator(".rating, .list-switch, #reader-message").count()).toBe(0);
  });

  it("forgets the key: the thumbs and the switch go, and a reload has none", async () => {
    const key = await issue("forget");
    const { page } = await open();
    await enterKey(page, key);
    // The day's screened papers, opened after the key was entered, get their thumbs too.
    await page.click("#screened-toggle");
    await page.waitForSelector("#screened-list .screened-item .rating");
    const screenedCount = await page.locator("#screened-list .screened-item").count();
    expect(screenedCount).toBe(screened.papers.filter((paper) => !paper.picked).length);
    expect(await page.locator("#screened-list .screened-item .rating").count()).toBe(screenedCount);
    await page.click("#forget-key");
    await expect.poll(() => page.locator(".rating, .list-switch, #for-you").count()).toBe(0);
    expect(await page.textContent("#use-key-result")).toContain("forgotten");
    await page.reload();
    await page.waitForSelector("html[data-ready=true]");
    expect(await page.locator(".rating, .list-switch").count()).toBe(0);
  });
});

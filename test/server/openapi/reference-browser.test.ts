import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type RunningServer } from "../../../server/http/listen.ts";
import { openApiDocument } from "../../../server/routes/docs-routes.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { ARTIFACTS, browserPlan, launchChromium } from "../../browser/chromium.ts";
import { testContext } from "../../helpers/context.ts";

// The reference in a real browser whose every request to another origin is refused, as on a machine
// with the network unplugged: it must still draw every operation of the document, without an error.

const plan = browserPlan();

describe.skipIf(plan.skip)("the interactive reference in Chromium, offline", () => {
  let snapshots: SnapshotCache;
  let server: RunningServer;
  let browser: Browser;
  beforeAll(async () => {
    snapshots = await createSnapshotCache({ publicDir: await mkdtemp(join(tmpdir(), "picks-offline-")) });
    server = await listen(await testContext(snapshots), { port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    snapshots?.close();
  });

  it("draws every operation from the server's own files alone", async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    const errors: string[] = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${server.url}/`)) return route.continue();
      elsewhere.push(url);
      return route.abort("internetdisconnected");
    });
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(String(error)));

    await page.goto(`${server.url}/v1/docs`);
    await page.locator(".opblock").first().waitFor({ timeout: 20_000 });
    // The page draws the paths' operations and the webhooks' (the deliveries the service sends).
    const { paths, webhooks } = openApiDocument() as Record<string, Record<string, object>>;
    const operations = [...Object.values(paths ?? {}), ...Object.values(webhooks ?? {})].flatMap((item) =>
      Object.keys(item),
    );
    expect(await page.locator(".opblock").count()).toBe(operations.length);
    expect(await page.locator(".info .title").innerText()).toContain("Research-Picks API");
    await page.screenshot({ path: join(ARTIFACTS, "api-reference.png") });
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

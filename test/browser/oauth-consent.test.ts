import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Started } from "../helpers/processes.ts";
import { seriousViolations } from "./axe.ts";
import { ARTIFACTS, browserPlan, launchChromium, watchPages } from "./chromium.ts";
import { startSeededSite } from "./site-under-test.ts";

// The consent page as a person meets it in a real Chromium: readable, accessible (axe-core), and its
// Allow button taking them back to the client with a code.

const plan = browserPlan();
const pages = watchPages();
let browser: Browser;
let server: Started;
let callback: Server;
let returned: string[] = [];

beforeAll(async () => {
  if (plan.skip) return;
  ({ server } = await startSeededSite("picks-consent-"));
  browser = await launchChromium();
  callback = createServer((req, res) => {
    returned.push(req.url ?? "");
    res.writeHead(200, { "content-type": "text/plain" }).end("back in the client");
  });
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  callback?.close();
});

async function freeKey(): Promise<string> {
  const answer = await fetch(`${server.url}/v1/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "reader@example.org", label: "consent" }),
  });
  return ((await answer.json()) as { key: string }).key;
}

describe.skipIf(plan.skip)("the consent page", () => {
  it("passes axe-core, and Allow takes the person back to the client with a code", async () => {
    const redirect = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/cb`;
    const registered = (await (
      await fetch(`${server.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Claude <script>", redirect_uris: [redirect] }),
      })
    ).json()) as { client_id: string };
    const url = new URL(`${server.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: registered.client_id,
      redirect_uri: redirect,
      response_type: "code",
      code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
      code_challenge_method: "S256",
      state: "st",
    }).toString();

    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    pages.keep(context);
    const page = await context.newPage();
    page.on("pageerror", (error) => pages.report(`pageerror: ${error.message}`));
    await page.goto(url.href);
    expect(await page.textContent("h1")).toBe("Connect an agent");
    // The client's name is text, never markup.
    expect(await page.textContent("main")).toContain("Claude <script>");
    await page.screenshot({ path: `${ARTIFACTS}/oauth-consent.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    returned = [];
    await page.fill("#api_key", await freeKey());
    await Promise.all([page.waitForURL(/\/cb\?/), page.click('button[value="approve"]')]);
    const back = new URL(returned[0] ?? "", redirect);
    expect(back.searchParams.get("code")).toMatch(/^rpac_/);
    expect(back.searchParams.get("state")).toBe("st");
    expect(back.searchParams.get("iss")).toBe(server.url);
  }, 60_000);
});

import { accessSync, constants } from "node:fs";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterEach, expect } from "vitest";

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Where screenshots are kept as test artifacts (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL("../../test-results/browser/", import.meta.url));

// On a machine without network access Chromium's background services would only collect refused
// connections; these flags keep it to the page under test.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const inCI = (): boolean => {
  const value = process.env.CI?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
};

function missingReason(): string | null {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return null;
  } catch {
    return `Chromium is not at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  }
}

/**
 * Whether the browser tests run here. Without Chromium they are skipped on a developer machine, with
 * the reason printed; in CI they run anyway and fail on the missing browser, so CI can never go green
 * without having driven the page.
 */
export function browserPlan(): { skip: boolean; missing: string | null } {
  const missing = missingReason();
  const skip = missing !== null && !inCI();
  if (skip) process.stderr.write(`browser tests skipped: ${missing}\n`);
  return { skip, missing };
}

/** Launches headless Chromium with a fresh profile; throws when it is not installed. */
export async function launchChromium(): Promise<Browser> {
  const missing = missingReason();
  if (missing) throw new Error(`${missing}; CI requires the browser tests to run`);
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
}

/**
 * The browser contexts a test opens and the problems their pages report (an uncaught error, a
 * request that left the origin, a blocked inline script): after each test its contexts are closed,
 * and any problem fails the test that caused it. Call at the top of a test file.
 */
export function watchPages(): { keep(context: BrowserContext): void; report(problem: string): void } {
  let contexts: BrowserContext[] = [];
  let problems: string[] = [];
  afterEach(async () => {
    for (const context of contexts) await context.close();
    contexts = [];
    const found = problems;
    problems = [];
    expect(found).toEqual([]);
  });
  return {
    keep: (context) => {
      contexts.push(context);
    },
    report: (problem) => {
      problems.push(problem);
    },
  };
}

/** Aborts and reports every request of `context` that leaves `origin`: a page under test reaches nothing else. */
export async function keepToOrigin(
  context: BrowserContext,
  origin: string,
  report: (problem: string) => void,
): Promise<void> {
  await context.route("**/*", async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin) return route.continue();
    report(`request left the origin: ${url.href}`);
    return route.abort();
  });
}

/** Reports a page's uncaught errors and the scripts its Content Security Policy blocked. */
export function reportPageErrors(page: Page, report: (problem: string) => void): void {
  page.on("pageerror", (error) => report(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) {
      report(`csp: ${message.text()}`);
    }
  });
}

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }>;
}
// The page's globals as axe-core uses them (the tests compile without the DOM library).
declare const window: { axe: { run(context: unknown, options: unknown): Promise<AxeResult> } };
declare const document: unknown;

const require = createRequire(import.meta.url);

/** Serious and critical axe-core findings on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated by the test, not loaded by the page: the page's policy allows no inline script.
  await page.evaluate(await readFile(require.resolve("axe-core/axe.min.js"), "utf8"));
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
}

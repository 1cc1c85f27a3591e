// Worst-case timing of the deterministic verification checks on adversarial 10,000-character bodies.
// Run: npx tsx bench/verify.ts

import { pathToFileURL } from "node:url";
import { type VerifyRequest, VerifyRequestSchema } from "../pipeline/domain/verify-request.ts";
import { runChecks } from "../server/verify/checks/run-checks.ts";

const BODY_LENGTH = 10_000;

function fill(unit: string, length = BODY_LENGTH): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Bodies built to make a careless scanner backtrack or rescan: named by the repeated unit. */
export const ADVERSARIAL_BODIES: Readonly<Record<string, string>> = Object.fromEntries(
  [
    "{",
    "{{",
    "{{a",
    "{a",
    "[",
    "[a",
    "[a](",
    "[a](b)",
    "]",
    "@",
    "a@",
    "a.a@a.a",
    "http://",
    "https://a.b/",
    "www.",
    "http://[",
    "%",
    "%A",
    "<",
    "<A",
    "<a ",
    '<a href="https://x.y">a.b',
    "*|A",
    "(insert ",
    " ",
    "\n",
    "1",
    "1 ",
    "+1 ",
    "1-",
    "4111 ",
    "DE89 ",
    "DE89",
    "eyJ",
    "eyJa.",
    "sk-",
    "-----BEGIN ",
    "-----BEGIN RSA PRIVATE KEY-----",
    "bearer ",
    "javascript:",
    "data:a/",
    "!",
    "!?",
    "A",
    "Subject:\n",
    "\n\nSubject: x",
    "ignore previous ",
    "as an ai ",
    "\u200B",
    "\u202E",
    "\uFE0F",
    "é",
    "e\u0301",
    "🚀",
    "👩‍💻",
    "a.",
    "xn--",
  ].map((unit) => [JSON.stringify(unit), fill(unit)]),
);

/** A request carrying the given body, the longest subject, and a full redlist of 200 terms. */
export function adversarialRequest(body: string): VerifyRequest {
  return VerifyRequestSchema.parse({
    subject: fill("{[%<@", 500),
    body,
    recipient: "anna.berg@northwind-labs.com",
    campaign: "adversarial",
    options: {
      weekend_block: true,
      timezone: "Europe/Berlin",
      redlist: Array.from({ length: 200 }, (_, index) => `term ${index} {[.*+?`),
    },
  });
}

export interface BenchRow {
  body: string;
  /** Fastest of the timed runs, milliseconds: the cost with the least interference from the machine. */
  minMs: number;
  medianMs: number;
  maxMs: number;
}

export interface VerifyBench {
  rows: BenchRow[];
  /** The slowest body's median: the number to hold under 5 ms. */
  worstMedianMs: number;
  worstBody: string;
  /** The slowest body's fastest run, which a loaded machine inflates least. */
  worstMinMs: number;
}

const NOW = new Date("2026-11-20T12:00:00Z");

/** Times `runChecks` on every adversarial body after a warm-up; reports the worst body. */
export function runVerifyBench(runs = 21): VerifyBench {
  const rows: BenchRow[] = [];
  const requests = Object.entries(ADVERSARIAL_BODIES).map(
    ([name, body]) => [name, adversarialRequest(body)] as const,
  );
  for (let warm = 0; warm < 3; warm++) for (const [, request] of requests) runChecks(request, { now: NOW });
  for (const [name, request] of requests) {
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      runChecks(request, { now: NOW });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    rows.push({
      body: name,
      minMs: times[0] ?? 0,
      medianMs: times[Math.floor(times.length / 2)] ?? 0,
      maxMs: times[times.length - 1] ?? 0,
    });
  }
  const worst = rows.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
  return {
    rows,
    worstMedianMs: worst.medianMs,
    worstBody: worst.body,
    worstMinMs: Math.max(...rows.map((row) => row.minMs)),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const result = runVerifyBench();
  for (const row of [...result.rows].sort((a, b) => b.medianMs - a.medianMs)) {
    const [min, median, max] = [row.minMs, row.medianMs, row.maxMs].map((ms) => ms.toFixed(3).padStart(7));
    console.log(`${row.body.padEnd(34)} min ${min} ms  median ${median} ms  max ${max} ms`);
  }
  console.log(`worst median: ${result.worstMedianMs.toFixed(3)} ms (${result.worstBody})`);
  console.log(`worst min:    ${result.worstMinMs.toFixed(3)} ms`);
}

// Steady-state cost of the deterministic checks on ordinary messages, the figure the throughput target
// of POST /v1/verify rests on (bench/verify.ts times the adversarial worst case instead).
// Run: npx tsx bench/verify-checks.ts

import { Buffer } from "node:buffer";
import { pathToFileURL } from "node:url";
import { type VerifyRequest, VerifyRequestSchema } from "../pipeline/domain/verify-request.ts";
import { CHECKS, createCheckContext, runChecks } from "../server/verify/checks/run-checks.ts";
import { verifyResultJson } from "../server/verify/result-json.ts";
import { createSemanticChecker } from "../server/verify/semantic.ts";
import { verifyMessage } from "../server/verify/verify-message.ts";

const NOW = new Date("2026-11-20T12:00:00Z");

/** 10,000 characters of plain English with nothing to find. */
export const ORDINARY_10K = "The evaluation covered the holdout split and the audit log. "
  .repeat(170)
  .slice(0, 10_000);

/** A realistic outreach mail of about 1,500 characters: a greeting, links, numbers, a signature. */
export const EMAIL_1500 = [
  "Hi Anna,",
  "",
  "Thanks again for the thorough review of our evaluation plan on Tuesday. I went through your notes",
  "with the team and we have made the changes you suggested: the holdout split is now stratified by",
  "source, and the audit log records every prompt and completion with its model version.",
  "",
  "The revised ablation table is in the shared folder (second tab). Two things stand out:",
  "",
  "1. The 7B run gains 3.4 points on the long-context tasks once retrieval is turned on.",
  "2. Calibration gets worse above 32k tokens; we think the position interpolation is to blame.",
  "",
  "I also wrote up the method in more detail here: https://research-picks.org/notes/2026-11-eval-plan",
  "and the paper we discussed is at https://arxiv.org/abs/2411.01234 if you want to compare.",
  "",
  "Could you take another look before Friday? If it is easier, I am happy to walk you through the",
  "numbers on a short call; Thursday at 14:00 or 16:30 CET both work for me. Jonas from the data team",
  "will join as well, since he set up the new logging pipeline and knows where the edge cases are.",
  "",
  "One open question: should we report the results per domain or only the macro average? The per-domain",
  "view is noisier, but it shows that the gains come almost entirely from code and math.",
  "",
  "Thanks for your time, and have a good week.",
  "",
  "P.S. The holdout numbers in the appendix still use the old tokenizer. I will rerun them tonight",
  "and update the table before we talk, so the numbers match the draft.",
  "",
  "Best regards,",
  "Jonas Keller",
  "Research Engineer, Northwind Labs",
].join("\n");

/** The same email as typed on a phone or pasted from a word processor: curly quotes, dashes, accents. */
export const EMAIL_TYPOGRAPHIC = EMAIL_1500.replace("Hi Anna,", "Hi Anna \u2013 quick update,")
  .replace("we think the", "we\u2019re fairly sure the")
  .replace("Jonas Keller", "Jonas K\u00e9ller")
  .replace("a short call;", "a short \u201ccall\u201d;");

function requestWith(body: string): VerifyRequest {
  return VerifyRequestSchema.parse({
    subject: "Follow-up on Tuesday's evaluation review",
    // Flat, as JSON.parse hands it to the server; a string built by repeat() and slice() reads slower.
    body: JSON.parse(JSON.stringify(body)),
    recipient: "anna.berg@northwind-labs.com",
    options: { weekend_block: true, timezone: "Europe/Berlin" },
  });
}

interface Timing {
  medianMs: number;
  /** The fastest sample: the cost with the least interference from the rest of the machine. */
  fastestMs: number;
}

/** Milliseconds per call of `work`, timed in batches so the clock's resolution does not count. */
function time(work: () => unknown, { samples = 51, batch = 50 } = {}): Timing {
  for (let warm = 0; warm < batch * 5; warm++) work();
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const started = performance.now();
    for (let call = 0; call < batch; call++) work();
    times.push((performance.now() - started) / batch);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)] ?? 0, fastestMs: times[0] ?? 0 };
}

/** Each check on its own with a fresh context, so views built lazily count towards the first user. */
export function perCheckMs(request: VerifyRequest): { name: string; ms: number }[] {
  const rows = [{ name: "views", ms: time(() => createCheckContext(request, NOW)).medianMs }];
  for (const check of CHECKS) {
    const { medianMs } = time(() => check(request, createCheckContext(request, NOW)));
    rows.push({ name: check.name, ms: medianMs });
  }
  return rows;
}

export interface VerifyChecksBench {
  /** Median `runChecks` milliseconds on the 10,000-character ordinary body; target ≤ 0.15. */
  ordinary10kMs: number;
  /** Median `runChecks` milliseconds on the 1,500-character email; target ≤ 0.03. */
  email1500Ms: number;
  /** The same with a few typographic characters, which leave the ASCII fast paths. */
  emailTypographicMs: number;
}

function timeRunChecks(body: string, batch: number): Timing {
  const request = requestWith(body);
  return time(() => runChecks(request, { now: NOW }), { batch });
}

/** Times `runChecks` on the ordinary bodies after a warm-up; medians in milliseconds. */
export function runVerifyChecksBench(): VerifyChecksBench {
  return {
    ordinary10kMs: timeRunChecks(ORDINARY_10K, 20).medianMs,
    email1500Ms: timeRunChecks(EMAIL_1500, 100).medianMs,
    emailTypographicMs: timeRunChecks(EMAIL_TYPOGRAPHIC, 100).medianMs,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const [label, body] of [
    ["10,000-char ordinary body", ORDINARY_10K],
    ["1,500-char email", EMAIL_1500],
  ] as const) {
    console.log(`${label}, per check (fresh context each), median:`);
    for (const row of perCheckMs(requestWith(body))) {
      console.log(`  ${row.name.padEnd(26)} ${row.ms.toFixed(4)} ms`);
    }
  }
  for (const [label, body, batch, target] of [
    ["ordinary 10k", ORDINARY_10K, 20, "≤ 0.15"],
    ["email 1,500", EMAIL_1500, 100, "≤ 0.03"],
    ["typographic", EMAIL_TYPOGRAPHIC, 100, "no target"],
  ] as const) {
    const { medianMs, fastestMs } = timeRunChecks(body, batch);
    const figures = `median ${medianMs.toFixed(4)} ms, fastest ${fastestMs.toFixed(4)} ms`;
    console.log(`runChecks ${label.padEnd(13)} ${figures} (target ${target})`);
  }
  // The answer to the 10k body as the route sends it; UTF-8 length counted, as writing it out flattens it.
  const answer = await verifyMessage(requestWith(ORDINARY_10K), {
    now: NOW,
    semantic: createSemanticChecker(undefined),
  });
  for (const [label, encode] of [
    ["JSON.stringify", JSON.stringify],
    ["verifyResultJson", verifyResultJson],
  ] as const) {
    const { medianMs, fastestMs } = time(() => Buffer.byteLength(encode(answer)), { batch: 200 });
    console.log(
      `answer JSON ${label.padEnd(17)} median ${medianMs.toFixed(4)} ms, fastest ${fastestMs.toFixed(4)} ms`,
    );
  }
}

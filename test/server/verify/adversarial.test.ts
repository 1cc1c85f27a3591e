import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ADVERSARIAL_BODIES, adversarialRequest } from "../../../bench/verify.ts";
import {
  CheckResultSchema,
  type VerifyRequest,
  VerifyRequestSchema,
} from "../../../pipeline/domain/verify-request.ts";
import { runChecks } from "../../../server/verify/checks/run-checks.ts";

const NOW = new Date("2026-11-20T12:00:00Z");
// Generous: the bench measures about 2 ms for the worst body; the bound absorbs a loaded CI machine,
// while a quadratic scan (hundreds of ms on 10,000 characters) still fails it.
const BOUND_MS = 50;

/** Fastest of a few runs: the scan's own cost, with the least noise from the rest of the machine. */
function fastestMs(request: VerifyRequest, runs = 3): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    runChecks(request, { now: NOW });
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

function expectWellFormed(request: VerifyRequest): void {
  const lengths = {
    subject: [...request.subject].length,
    body: [...request.body].length,
    recipient: [...request.recipient].length,
    campaign: [...request.campaign].length,
  };
  for (const check of runChecks(request, { now: NOW })) {
    expect(CheckResultSchema.parse(check)).toEqual(check);
    for (const span of check.evidence) {
      expect(span.start).toBeGreaterThanOrEqual(0);
      expect(span.start).toBeLessThanOrEqual(span.end);
      expect(span.end).toBeLessThanOrEqual(lengths[span.field]);
    }
  }
}

const TOKENS = [
  "{",
  "}",
  "[",
  "]",
  "(",
  ")",
  "@",
  "http://",
  "https://",
  "www.",
  "%",
  "<",
  ">",
  "<a href=",
  " ",
  "  ",
  "\n",
  "1",
  "4111",
  "+",
  "-",
  ".",
  "a",
  "A",
  "DE89",
  "eyJ",
  "sk-",
  "!",
  "Subject:",
  "ignore previous",
  "\u200B",
  "\u202E",
  "\uFE0F",
  "é",
  "🚀",
];

describe("adversarial input", () => {
  // Warm the JIT once so the first case does not pay for compilation.
  runChecks(adversarialRequest(ADVERSARIAL_BODIES['"{"'] ?? "{"), { now: NOW });

  it.each(
    Object.entries(ADVERSARIAL_BODIES),
  )("checks a 10,000-character body of %s in time", (_name, body) => {
    expect(body.length).toBe(10_000);
    const request = adversarialRequest(body);
    expect(fastestMs(request)).toBeLessThan(BOUND_MS);
    expectWellFormed(request);
  });

  it("checks random mixes of adversarial tokens in time", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 4000 }), (tokens) => {
        const request = adversarialRequest(tokens.join("").slice(0, 10_000));
        expect(fastestMs(request, 2)).toBeLessThan(BOUND_MS);
      }),
      { numRuns: 40 },
    );
  });

  it.each([
    ["nested terms against a run of one letter", "a".repeat(10_000)],
    ["nested terms against spaced letters", "a ".repeat(5_000)],
  ])("bounds a redlist of %s", (_name, body) => {
    const request = VerifyRequestSchema.parse({
      subject: "Hello",
      body,
      recipient: "anna@northwind-labs.com",
      options: {
        // Terms of 1 to 100 words, the longest 199 characters (the schema allows 200).
        redlist: Array.from({ length: 200 }, (_, index) =>
          Array((index % 100) + 1)
            .fill("a")
            .join(" "),
        ),
      },
    });
    expect(fastestMs(request)).toBeLessThan(BOUND_MS);
    const redlist = runChecks(request, { now: NOW }).find((check) => check.id === "redlist");
    expect(redlist?.status).toBe(body.startsWith("a ") ? "fail" : "pass");
  });

  it("never throws and keeps evidence inside the fields on arbitrary text", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", minLength: 1, maxLength: 500 }),
        fc.string({ unit: "binary", minLength: 1, maxLength: 2000 }),
        fc.string({ unit: "binary", minLength: 3, maxLength: 80 }),
        fc.array(fc.string({ unit: "binary", maxLength: 8 }), { maxLength: 5 }),
        (subject, body, recipient, redlist) => {
          expectWellFormed(
            VerifyRequestSchema.parse({ subject, body, recipient, campaign: "c", options: { redlist } }),
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});

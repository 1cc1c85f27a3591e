// Regressions for the cheap pre-checks that let the checks skip most text: each case sits at the edge of
// one of them (a marker, a literal, a digit count, a text beyond ASCII) and must still be found.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CheckStatus, VerifyRequestInput } from "../../../pipeline/domain/verify-request.ts";
import { localTime } from "../../../server/verify/checks/local-time.ts";
import { createTextViews } from "../../../server/verify/checks/text-views.ts";
import { checkOf, followUp } from "./messages.ts";

interface Case {
  name: string;
  message: Partial<VerifyRequestInput>;
  check: string;
  status: CheckStatus;
  shows?: string;
}

const body = (text: string): Partial<VerifyRequestInput> => ({ body: text });

const CASES: Case[] = [
  // secrets: only tokens around "-", "_", "A" and "J" are read.
  ...[
    "hf_abcdefghijklmnopqrstuvwxyz0123",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "github_pat_11ABCDEFG0123456789_abcdefghij",
    "glpat-abcdefghij0123456789",
    "sk_live_abcdefghij0123456789",
    "rk_test_abcdefghij0123456789",
    "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "ASIAIOSFODNN7EXAMPLE",
    "(AKIAIOSFODNN7EXAMPLE)",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345...",
  ].map(
    (token): Case => ({
      name: `the token ${token}`,
      message: body(`Use ${token} now`),
      check: "secrets",
      status: "fail",
    }),
  ),
  {
    name: "a key glued after a dot, which makes it part of a longer token",
    message: body("x.sk-proj-4fJq9XwZk2LmN8pR3sT6vY1bC5dE7gH0"),
    check: "secrets",
    status: "pass",
  },
  {
    name: "a token in the subject",
    message: { subject: "key AKIAIOSFODNN7EXAMPLE" },
    check: "secrets",
    status: "fail",
  },

  // links: the scheme scan runs only where a colon follows "ipt" or "ata".
  ...["JavaScript:alert(1)", "VBSCRIPT:MsgBox", "DATA:text/html;base64,AAAA"].map(
    (url): Case => ({
      name: `the URL ${url}`,
      message: body(`Open ${url} now`),
      check: "links",
      status: "fail",
    }),
  ),
  {
    name: "colons elsewhere",
    message: body("Data: see below. Meet at 14:00: https://example.org/a"),
    check: "links",
    status: "pass",
  },

  // links: URLs are searched only in text holding "://", or "www." in any case.
  ...["WwW.bit.ly/x", "HTTPS://user@evil.example/x", "see www.bit.ly/xé"].map(
    (url): Case => ({
      name: `the link ${url}`,
      message: body(`Open ${url} now`),
      check: "links",
      status: url.includes("@") ? "fail" : "warn",
    }),
  ),
  // secrets: bearer tokens are searched only in text saying "bearer" in any case.
  ...["BeArEr", "BEARER", "bearer"].map(
    (word): Case => ({
      name: `a bearer token after ${word}`,
      message: body(`Authorization: ${word} abcdefghijklmnop1234 ok`),
      check: "secrets",
      status: "fail",
    }),
  ),
  {
    name: "a bearer token in a body beyond ASCII",
    message: body("Authorization: Bearer abcdefghijklmnop1234 é"),
    check: "secrets",
    status: "fail",
  },

  // personal data: digit runs with fewer than eight digits are skipped unread.
  {
    name: "a phone number of exactly eight digits",
    message: body("Call 030 1234 56 today."),
    check: "personal_data",
    status: "warn",
    shows: "030 1234 56",
  },
  { name: "seven digits", message: body("Call 030 123 4 today."), check: "personal_data", status: "pass" },
  {
    name: "a card number in the subject",
    message: { subject: "Card 4111 1111 1111 1111" },
    check: "personal_data",
    status: "fail",
  },

  // placeholders: each pattern starts its search at its opening literal.
  {
    name: "a placeholder after an unrelated parenthesis",
    message: body("Thanks (really). Dear (insert name), welcome"),
    check: "placeholders",
    status: "fail",
    shows: "(insert name)",
  },
  {
    name: "a placeholder in the recipient",
    message: { recipient: "{{email}}" },
    check: "placeholders",
    status: "fail",
  },

  // AI artifacts: subject lines are searched only in bodies that say "subject".
  {
    name: "a 'SUBJECT:' line in capitals",
    message: body("SUBJECT: Quick question\n\nHi Anna"),
    check: "ai_artifacts",
    status: "fail",
  },
  {
    name: "a 'SuBjEcT:' line in a body beyond ASCII",
    message: body("SuBjEcT: Quick question é\n\nHi Anna"),
    check: "ai_artifacts",
    status: "fail",
  },
  {
    name: "a phrase across a paragraph break",
    message: body("As an AI\n\n  language model, I wrote this."),
    check: "ai_artifacts",
    status: "fail",
  },
  {
    name: "a phrase with a typographic apostrophe",
    message: body("Here\u2019s the email: hello"),
    check: "ai_artifacts",
    status: "fail",
  },

  // shouting: ASCII letters are counted four bytes at a time, the others one by one.
  {
    name: "capitals beyond ASCII",
    message: { subject: "ÜBER ÄRGER ÖFFNEN SOFORT" },
    check: "shouting",
    status: "warn",
  },
  {
    name: "astral capitals",
    message: { subject: "\u{1d400}\u{1d401}\u{1d402}\u{1d403}\u{1d404}\u{1d405}\u{1d406}\u{1d407}\u{1d408}" },
    check: "shouting",
    status: "warn",
  },

  // invisible characters: ASCII fields are skipped; the others jump from candidate to candidate.
  {
    name: "a zero-width space in the campaign",
    message: { campaign: "q4\u200boutreach" },
    check: "invisible_characters",
    status: "warn",
  },
  {
    name: "a bidi override in the recipient",
    message: { recipient: "anna\u202e@northwind-labs.com" },
    check: "invisible_characters",
    status: "fail",
  },
  {
    name: "U+2065, unassigned between the invisible operators",
    message: body("a\u2065b"),
    check: "invisible_characters",
    status: "pass",
  },
  {
    name: "an invisible character right after an emoji",
    message: body("Done 🚀\u200b ok"),
    check: "invisible_characters",
    status: "warn",
  },

  // opt-out: found in the shared pass over the body, with accents decomposed.
  {
    name: "a decomposed accent in an opt-out line",
    message: { campaign: "fr-news", body: "Pour vous de\u0301sabonner, re\u0301pondez STOP." },
    check: "opt_out",
    status: "pass",
  },
];

describe("pre-checks keep every finding", () => {
  it.each(CASES)("$check: $name -> $status", ({ message, check, status, shows }) => {
    const result = checkOf(followUp(message), check);
    expect(result.status, result.message).toBe(status);
    if (shows !== undefined) expect(result.evidence[0]?.text).toBe(shows);
  });

  it("finds spam phrases on both sides of the middle of a long body", () => {
    const filler = "The evaluation covered the holdout split. ".repeat(60);
    const result = checkOf(followUp({ body: `${filler}Act now and click here. ${filler}` }), "spam_phrases");
    expect(result.evidence.map((span) => span.text)).toEqual(["Act now", "click here"]);
  });
});

describe("mayHold", () => {
  it("says no only when no mix of cases of the literal occurs", () => {
    // The literals in mixed cases, and what folding changes around them: marks, ignorables, spaces.
    const piece = fc.constantFrom("BeArEr", "bearer", "WwW.", "www.", "SUBJECT", "subject", "e", "\u0301");
    const other = fc.constantFrom(" ", "\n", "\u00e9", "\u200b", "\u017f", "\u212a", "x");
    const text = fc
      .array(fc.oneof(piece, other), { minLength: 1, maxLength: 12 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, fc.constantFrom("bearer", "www.", "subject"), (body, literal) => {
        const views = createTextViews(followUp({ body }));
        const pattern = new RegExp(literal.replace(".", "\\."), "i");
        if (pattern.test(body)) expect(views.mayHold("body", literal)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("local time", () => {
  it("answers every instant of a second alike, and the next second anew", () => {
    const second = Date.parse("2026-11-20T23:59:59Z");
    const first = localTime(new Date(second), "Asia/Kolkata");
    expect(localTime(new Date(second + 999), "Asia/Kolkata")).toEqual(first);
    expect(localTime(new Date(second + 999), "UTC").iso).toBe("2026-11-20T23:59:59+00:00");
    expect(localTime(new Date(second + 1000), "Asia/Kolkata").iso).toBe("2026-11-21T05:30:00+05:30");
    expect(localTime(new Date(second + 1000), "UTC")).toMatchObject({ weekday: "Saturday", isWeekend: true });
  });
});

// Real-looking messages shared by the verification tests.

import {
  type CheckResult,
  type VerifyRequest,
  type VerifyRequestInput,
  VerifyRequestSchema,
} from "../../../pipeline/domain/verify-request.ts";
import { runChecks } from "../../../server/verify/checks/run-checks.ts";

/** A Friday afternoon everywhere from Honolulu to Tokyo. */
export const FRIDAY_NOON_UTC = new Date("2026-11-20T12:00:00Z");

export const COLLEAGUE_FOLLOW_UP: VerifyRequestInput = {
  subject: "Follow-up on Tuesday's evaluation review",
  body: [
    "Hi Anna,",
    "",
    "Thanks for walking me through the evaluation plan on Tuesday. I've pushed the revised ablation",
    "table to the shared folder; the numbers for the 7B run are in the second tab.",
    "",
    "Could you take a look before Friday? Happy to jump on a call if anything is unclear.",
    "",
    "Best,",
    "Jonas",
  ].join("\n"),
  recipient: "anna.berg@northwind-labs.com",
};

export const NEWSLETTER: VerifyRequestInput = {
  subject: "Research Picks weekly: five papers on agent memory",
  body: [
    "Hello,",
    "",
    "This week's picks cover memory management for long-running agents.",
    "",
    "1. [Paged context for agents](https://arxiv.org/abs/2411.01234)",
    "2. A benchmark for tool-use recall: https://arxiv.org/abs/2411.04321",
    "",
    "The full list with scores is at https://research-picks.org/daily/2026-11-20.",
    "",
    "You receive this because you subscribed at research-picks.org.",
    "Unsubscribe: https://research-picks.org/unsubscribe?u=4f2a9c",
  ].join("\n"),
  recipient: "reader@fastmail.com",
  campaign: "weekly-2026-47",
};

export function request(input: VerifyRequestInput): VerifyRequest {
  return VerifyRequestSchema.parse(input);
}

/** The colleague follow-up with some fields replaced. */
export function followUp(overrides: Partial<VerifyRequestInput>): VerifyRequest {
  return request({ ...COLLEAGUE_FOLLOW_UP, ...overrides });
}

export function checkOf(input: VerifyRequest, id: string, now = FRIDAY_NOON_UTC): CheckResult {
  const found = runChecks(input, { now }).find((check) => check.id === id);
  if (!found) throw new Error(`no check with id ${id}`);
  return found;
}

/** The text a span covers, cut by code points as the offsets promise. */
export function spanText(
  message: VerifyRequest,
  field: keyof VerifyRequest,
  start: number,
  end: number,
): string {
  const value = message[field];
  if (typeof value !== "string") throw new Error(`${field} is not text`);
  return [...value].slice(start, end).join("");
}

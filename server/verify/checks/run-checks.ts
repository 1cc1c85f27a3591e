import type { CheckResult, VerifyRequest } from "../../../pipeline/domain/verify-request.ts";
import { checkAiArtifacts } from "./ai-artifacts.ts";
import type { Check, CheckContext } from "./check-types.ts";
import { checkInvisibleCharacters } from "./invisible-characters.ts";
import { checkLinks } from "./links.ts";
import { checkPersonalData } from "./personal-data.ts";
import { checkPlaceholders } from "./placeholders.ts";
import { checkRecipient } from "./recipient.ts";
import { checkRedlist } from "./redlist.ts";
import { checkSecrets } from "./secrets.ts";
import { checkSendWindow } from "./send-window.ts";
import { checkOptOut, checkShouting, checkSpamPhrases } from "./style.ts";
import { createTextViews } from "./text-views.ts";

/** Every deterministic check, in the order the result lists them. */
export const CHECKS: readonly Check[] = [
  checkSendWindow,
  checkRecipient,
  checkRedlist,
  checkPlaceholders,
  checkSecrets,
  checkPersonalData,
  checkLinks,
  checkAiArtifacts,
  checkInvisibleCharacters,
  checkShouting,
  checkSpamPhrases,
  checkOptOut,
];

/** The context one request's checks share. */
export function createCheckContext(request: VerifyRequest, now: Date): CheckContext {
  return { now, views: createTextViews(request) };
}

/** Runs every deterministic check on a validated request; `now` is the instant of the check. */
export function runChecks(request: VerifyRequest, { now }: { now: Date }): CheckResult[] {
  const context = createCheckContext(request, now);
  return CHECKS.map((check) => check(request, context));
}

import type { SemanticResult, VerifyRequest, VerifyResult } from "../../pipeline/domain/verify-request.ts";
import { decide } from "./checks/decide.ts";
import { localTime } from "./checks/local-time.ts";
import { runChecks } from "./checks/run-checks.ts";
import {
  failedReview,
  type SemanticChecker,
  type SemanticLog,
  sharedSkippedReview,
  stderrLog,
} from "./semantic.ts";

const CHECKER_VERSION = "1.0.0";

const REVIEW_TURNED_OFF = sharedSkippedReview(
  "The request turned the semantic review off (llm_check: false).",
);

async function reviewSafely(
  semantic: SemanticChecker,
  request: VerifyRequest,
  log: SemanticLog,
): Promise<SemanticResult> {
  if (!request.options.llm_check) return REVIEW_TURNED_OFF;
  try {
    return await semantic(request);
  } catch (error) {
    // A checker should answer `error` itself; one that throws still must not turn a check into a 500,
    // nor show its message to the caller.
    return failedReview(
      "review_failed",
      error instanceof Error ? (error.stack ?? error.message) : String(error),
      log,
    );
  }
}

/**
 * Runs the deterministic checks and the semantic review of a validated request and assembles the
 * answer. `now` is the instant of the check; the review runs while the checks do. `log` gets what
 * went wrong when the review fails (stderr when not given).
 */
export async function verifyMessage(
  request: VerifyRequest,
  { now, semantic, log }: { now: Date; semantic: SemanticChecker; log?: SemanticLog },
): Promise<VerifyResult> {
  const review = reviewSafely(semantic, request, log ?? stderrLog);
  const checks = runChecks(request, { now });
  const semanticResult = await review;
  const local = localTime(now, request.options.timezone);
  const { verdict, risk, summary } = decide(checks, semanticResult);
  return {
    verdict,
    risk,
    summary,
    checks,
    semantic: semanticResult,
    metadata: {
      checker_version: CHECKER_VERSION,
      timezone: local.timezone,
      local_time: local.iso,
      weekday: local.weekday,
      offset_unit: "code_point",
    },
  };
}

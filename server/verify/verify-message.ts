import type { SemanticResult, VerifyRequest, VerifyResult } from "../../pipeline/domain/verify-request.ts";
import { decide } from "./decide.ts";
import { localTime } from "./local-time.ts";
import { runChecks } from "./run-checks.ts";
import type { SemanticChecker } from "./semantic.ts";

export const CHECKER_VERSION = "1.0.0";

async function reviewSafely(semantic: SemanticChecker, request: VerifyRequest): Promise<SemanticResult> {
  if (!request.options.llm_check) {
    return {
      status: "skipped",
      reason: "The request turned the semantic review off (llm_check: false).",
      findings: [],
    };
  }
  try {
    return await semantic(request);
  } catch (error) {
    // A checker should answer `error` itself; one that throws still must not turn a check into a 500.
    const detail = error instanceof Error ? error.message : String(error);
    return { status: "error", reason: `The semantic review failed: ${detail.slice(0, 200)}.`, findings: [] };
  }
}

/**
 * Runs the deterministic checks and the semantic review of a validated request and assembles the
 * answer. `now` is the instant of the check; the review runs while the checks do.
 */
export async function verifyMessage(
  request: VerifyRequest,
  { now, semantic }: { now: Date; semantic: SemanticChecker },
): Promise<VerifyResult> {
  const review = reviewSafely(semantic, request);
  const checks = runChecks(request, { now });
  const semanticResult = await review;
  const local = localTime(now, request.options.timezone);
  return {
    ...decide(checks, semanticResult),
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

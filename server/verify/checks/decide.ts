import type {
  CheckResult,
  SemanticResult,
  Severity,
  Verdict,
} from "../../../pipeline/domain/verify-request.ts";

export interface Decision {
  verdict: Verdict;
  risk: number;
  summary: string;
}

// Weights place each verdict in its own band of risk (allow 0, warn 0.2..0.69, block 0.75..1), so a
// larger risk never comes with a milder verdict, and a worse severity never lowers the risk.
const FAIL_WEIGHT: Record<Severity, number> = {
  info: 0.2,
  low: 0.3,
  medium: 0.45,
  high: 0.8,
  critical: 0.95,
};
const WARN_WEIGHT: Record<Severity, number> = { info: 0.2, low: 0.22, medium: 0.3, high: 0.4, critical: 0.5 };
const SEMANTIC_WEIGHT: Partial<Record<SemanticResult["status"], number>> = {
  error: 0.25,
  warn: 0.35,
  fail: 0.45,
};
const BAND_CEILING: Record<Verdict, number> = { allow: 0, warn: 0.69, block: 1 };
// Each further finding adds a little: two problems are riskier than one.
const SPREAD = 0.05;

function weightOf(check: CheckResult): number {
  if (check.status === "fail") return FAIL_WEIGHT[check.severity];
  if (check.status === "warn") return WARN_WEIGHT[check.severity];
  return 0;
}

function isBlocking(check: CheckResult): boolean {
  return check.status === "fail" && (check.severity === "high" || check.severity === "critical");
}

function listChecks(checks: readonly CheckResult[]): string {
  const names = checks.slice(0, 4).map((check) => check.id);
  return checks.length > 4 ? `${names.join(", ")} and ${checks.length - 4} more` : names.join(", ");
}

function semanticClause(semantic: SemanticResult): string {
  const count = semantic.findings.length;
  switch (semantic.status) {
    case "skipped":
      return "semantic review skipped";
    case "error":
      return "semantic review failed";
    case "pass":
      return "semantic review passed";
    default:
      return `semantic review ${semantic.status === "fail" ? "failed the message" : "warned"} (${count} finding${count === 1 ? "" : "s"})`;
  }
}

/**
 * Block when any check fails with high or critical severity; warn when a check warns, fails with
 * lower severity, or the semantic review warns, fails or errors; allow otherwise. The semantic review
 * never blocks on its own: a model's judgement raises a flag, the deterministic checks stop a send.
 */
export function decide(checks: readonly CheckResult[], semantic: SemanticResult): Decision {
  const blocking = checks.filter(isBlocking);
  const flagged = checks.filter(
    (check) => (check.status === "warn" || check.status === "fail") && !isBlocking(check),
  );
  const semanticWeight = SEMANTIC_WEIGHT[semantic.status] ?? 0;
  let verdict: Verdict = "allow";
  if (blocking.length > 0) verdict = "block";
  else if (flagged.length > 0 || semanticWeight > 0) verdict = "warn";

  const weights = [...checks.map(weightOf), semanticWeight]
    .filter((weight) => weight > 0)
    .sort((a, b) => b - a);
  const [top = 0, ...rest] = weights;
  const spread = rest.reduce((sum, weight) => sum + weight * SPREAD, 0);
  const risk = Math.round(Math.min(BAND_CEILING[verdict], top + spread) * 1000) / 1000;

  const clause = semanticClause(semantic);
  let summary: string;
  if (verdict === "block") {
    summary = `Block: ${blocking.length} check${blocking.length === 1 ? "" : "s"} failed (${listChecks(blocking)})`;
    if (flagged.length > 0) summary += `, ${flagged.length} more flagged (${listChecks(flagged)})`;
  } else if (verdict === "warn") {
    summary =
      flagged.length > 0
        ? `Warn: ${flagged.length} check${flagged.length === 1 ? "" : "s"} flagged (${listChecks(flagged)})`
        : "Warn: all checks passed";
  } else {
    summary = "Allow: all checks passed";
  }
  return { verdict, risk, summary: `${summary}; ${clause}.` };
}

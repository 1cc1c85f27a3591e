import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CHECK_STATUSES,
  type CheckResult,
  type CheckStatus,
  SEMANTIC_STATUSES,
  SEVERITIES,
  type SemanticResult,
  type SemanticStatus,
  type Severity,
  type Verdict,
} from "../../../pipeline/domain/verify-request.ts";
import { SEVERITY_RANK } from "../../../server/verify/checks/check-types.ts";
import { decide } from "../../../server/verify/checks/decide.ts";

const check = (status: CheckStatus, severity: Severity, id = "x"): CheckResult => ({
  id,
  name: id,
  status,
  severity,
  message: "m",
  evidence: [],
});
const semantic = (status: SemanticStatus): SemanticResult => ({ status, reason: "r", findings: [] });
const PASS = check("pass", "info");

describe("decide", () => {
  it.each<[string, CheckResult[], SemanticStatus, Verdict]>([
    ["nothing found", [PASS, check("skipped", "info")], "skipped", "allow"],
    ["semantic pass", [PASS], "pass", "allow"],
    ["a high fail", [check("fail", "high")], "pass", "block"],
    ["a critical fail", [PASS, check("fail", "critical")], "skipped", "block"],
    ["a medium fail", [check("fail", "medium")], "pass", "warn"],
    ["a low fail", [check("fail", "low")], "pass", "warn"],
    ["a high warn", [check("warn", "high")], "pass", "warn"],
    ["a low warn", [check("warn", "low")], "skipped", "warn"],
    ["semantic error alone", [PASS], "error", "warn"],
    ["semantic warn alone", [PASS], "warn", "warn"],
    ["semantic fail alone", [PASS], "fail", "warn"],
    ["a high fail with a semantic error", [check("fail", "high")], "error", "block"],
  ])("%s -> %s", (_name, checks, semanticStatus, verdict) => {
    const decision = decide(checks, semantic(semanticStatus));
    expect(decision.verdict).toBe(verdict);
    expect(decision.summary).not.toMatch(/[\r\n]/);
    expect(decision.summary.toLowerCase().startsWith(verdict)).toBe(true);
    if (verdict === "allow") expect(decision.risk).toBe(0);
  });

  it("names the failing checks in the summary", () => {
    const decision = decide(
      [check("fail", "high", "secrets"), check("warn", "low", "links")],
      semantic("skipped"),
    );
    expect(decision.summary).toBe(
      "Block: 1 check failed (secrets), 1 more flagged (links); semantic review skipped.",
    );
  });

  const arbitraryCheck = fc
    .tuple(fc.constantFrom(...CHECK_STATUSES), fc.constantFrom(...SEVERITIES))
    .map(([status, severity]) => check(status, severity));
  const verdictRank: Record<Verdict, number> = { allow: 0, warn: 1, block: 2 };

  it("keeps risk in 0..1 and orders verdicts by risk", () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryCheck, { maxLength: 12 }),
        fc.array(arbitraryCheck, { maxLength: 12 }),
        fc.constantFrom(...SEMANTIC_STATUSES),
        fc.constantFrom(...SEMANTIC_STATUSES),
        (a, b, sa, sb) => {
          const first = decide(a, semantic(sa));
          const second = decide(b, semantic(sb));
          for (const decision of [first, second]) expect(decision.risk).toBeGreaterThanOrEqual(0);
          for (const decision of [first, second]) expect(decision.risk).toBeLessThanOrEqual(1);
          if (verdictRank[first.verdict] < verdictRank[second.verdict])
            expect(first.risk).toBeLessThan(second.risk);
        },
      ),
    );
  });

  it("never lowers the risk when a finding gets more severe or another is added", () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryCheck, { minLength: 1, maxLength: 12 }),
        fc.nat(),
        fc.constantFrom(...SEVERITIES),
        arbitraryCheck,
        (checks, pick, severity, extra) => {
          const index = pick % checks.length;
          const before = checks[index] as CheckResult;
          if (SEVERITY_RANK[severity] < SEVERITY_RANK[before.severity]) return;
          const raised = checks.with(index, { ...before, severity });
          const base = decide(checks, semantic("pass"));
          expect(decide(raised, semantic("pass")).risk).toBeGreaterThanOrEqual(base.risk);
          expect(decide([...checks, extra], semantic("pass")).risk).toBeGreaterThanOrEqual(base.risk);
          expect(decide(checks, semantic("error")).risk).toBeGreaterThanOrEqual(base.risk);
        },
      ),
    );
  });
});

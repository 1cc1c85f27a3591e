import type { CheckResult, Severity, Span, VerifyRequest } from "../../pipeline/domain/verify-request.ts";
import type { TextViews } from "./text-views.ts";

/** What every check gets besides the message: the instant of the check and shared text views. */
export interface CheckContext {
  now: Date;
  views: TextViews;
}

export type Check = (message: VerifyRequest, context: CheckContext) => CheckResult;

export const SEVERITY_RANK: Record<Severity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

/** Evidence spans per check; the message still counts every finding. */
export const MAX_EVIDENCE = 20;
const MAX_NOTES = 5;

export function passed(id: string, name: string, message: string, severity: Severity = "info"): CheckResult {
  return { id, name, status: "pass", severity, message, evidence: [] };
}

export function skipped(id: string, name: string, message: string): CheckResult {
  return { id, name, status: "skipped", severity: "info", message, evidence: [] };
}

/**
 * Gathers a check's findings and folds them into one result: fail beats warn, the highest severity of
 * the deciding status wins, the message lists the distinct notes and then the advice. Spans are
 * computed only for the first MAX_EVIDENCE findings, so a body full of hits stays cheap.
 */
export interface Findings {
  /** `note` is a short lower-case phrase such as "unfilled placeholder '{{first_name}}' in body". */
  add(status: "warn" | "fail", severity: Severity, note: string, span?: () => Span): void;
  readonly count: number;
  result(id: string, name: string, passMessage: string, advice: string): CheckResult;
}

export function createFindings(): Findings {
  const notes = new Set<string>();
  const evidence: Span[] = [];
  let count = 0;
  let status: "warn" | "fail" = "warn";
  let severity: Severity = "info";
  return {
    add(findingStatus, findingSeverity, note, span) {
      count += 1;
      notes.add(note);
      if (findingStatus === "fail" && status === "warn") {
        status = "fail";
        severity = findingSeverity;
      } else if (findingStatus === status && SEVERITY_RANK[findingSeverity] > SEVERITY_RANK[severity]) {
        severity = findingSeverity;
      }
      if (span && evidence.length < MAX_EVIDENCE) evidence.push(span());
    },
    get count() {
      return count;
    },
    result(id, name, passMessage, advice) {
      if (count === 0) return passed(id, name, passMessage);
      const list = [...notes];
      const shown = list.slice(0, MAX_NOTES).join("; ");
      const more = list.length > MAX_NOTES ? ` and ${list.length - MAX_NOTES} more` : "";
      const sentence = `${shown.charAt(0).toUpperCase()}${shown.slice(1)}${more}.`;
      return { id, name, status, severity, message: `${sentence} ${advice}`, evidence };
    },
  };
}

/** A one-line, bounded rendering of user text for messages. */
export function quoteText(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ");
  return `'${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}'`;
}

import { LRUCache } from "lru-cache";
import type { CheckResult, Severity, Span, VerifyRequest } from "../../../pipeline/domain/verify-request.ts";
import { shareWithJson } from "../shared-json.ts";
import type { TextViews } from "./text-views.ts";

/** What every check gets besides the message: the instant of the check and shared text views. */
export interface CheckContext {
  now: Date;
  views: TextViews;
}

export type Check = (message: VerifyRequest, context: CheckContext) => CheckResult;

export const SEVERITY_RANK: Record<Severity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

/** Evidence spans per check; the message still counts every finding. */
const MAX_EVIDENCE = 20;
const MAX_NOTES = 5;

// A result without findings is the same for every request that gets it (a redlist's count aside), so
// it is shared, with its JSON (see shared-json.ts). The bound keeps messages that name counts from
// growing the table without end; a message that quotes the client's text is never kept (`share`
// false): the table lives as long as the process.
const shared = new LRUCache<string, CheckResult>({ max: 256 });

function findingless(
  id: string,
  name: string,
  status: "pass" | "skipped",
  severity: Severity,
  message: string,
  share = true,
): CheckResult {
  const known = shared.get(message);
  if (known?.id === id && known.name === name && known.status === status && known.severity === severity) {
    return known;
  }
  if (!share) return { id, name, status, severity, message, evidence: [] };
  const result: CheckResult = shareWithJson({ id, name, status, severity, message, evidence: [] });
  if (known === undefined) shared.set(message, result);
  return result;
}

export function passed(
  id: string,
  name: string,
  message: string,
  severity: Severity = "info",
  share = true,
): CheckResult {
  return findingless(id, name, "pass", severity, message, share);
}

export function skipped(id: string, name: string, message: string): CheckResult {
  return findingless(id, name, "skipped", "info", message);
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
  /** `share` false when the pass message quotes the client's text (see `findingless`). */
  result(id: string, name: string, passMessage: string, advice: string, share?: boolean): CheckResult;
}

// A class, not a closure per method: every check of every request makes one, and most add nothing.
class FindingsList implements Findings {
  count = 0;
  private notes: Set<string> | undefined;
  private evidence: Span[] | undefined;
  private status: "warn" | "fail" = "warn";
  private severity: Severity = "info";

  add(status: "warn" | "fail", severity: Severity, note: string, span?: () => Span): void {
    this.count += 1;
    this.notes ??= new Set();
    this.notes.add(note);
    if (status === "fail" && this.status === "warn") {
      this.status = "fail";
      this.severity = severity;
    } else if (status === this.status && SEVERITY_RANK[severity] > SEVERITY_RANK[this.severity]) {
      this.severity = severity;
    }
    this.evidence ??= [];
    if (span && this.evidence.length < MAX_EVIDENCE) this.evidence.push(span());
  }

  result(id: string, name: string, passMessage: string, advice: string, share = true): CheckResult {
    if (this.count === 0 || !this.notes || !this.evidence)
      return passed(id, name, passMessage, "info", share);
    const list = [...this.notes];
    const shown = list.slice(0, MAX_NOTES).join("; ");
    const more = list.length > MAX_NOTES ? ` and ${list.length - MAX_NOTES} more` : "";
    const sentence = `${shown.charAt(0).toUpperCase()}${shown.slice(1)}${more}.`;
    const { status, severity, evidence } = this;
    return { id, name, status, severity, message: `${sentence} ${advice}`, evidence };
  }
}

export function createFindings(): Findings {
  return new FindingsList();
}

/** A one-line rendering of user text for messages, of at most 60 characters. */
export function quoteText(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return `'${flat.length > 60 ? `${flat.slice(0, 59)}…` : flat}'`;
}

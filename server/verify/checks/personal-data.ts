import type { MessageField, VerifyRequest } from "../../../pipeline/domain/verify-request.ts";
import { ibanLength, readIban } from "./account-numbers.ts";
import { type Check, createFindings, type Findings } from "./check-types.ts";
import { hasDigit, scanNumbers } from "./digit-runs.ts";
import { addressProblem, isRoleAddress } from "./email-address.ts";
import { isWordAt } from "./normalize.ts";
import type { TextViews } from "./text-views.ts";

const ID = "personal_data";
const NAME = "Third-party personal data";
const FIELDS: readonly MessageField[] = ["subject", "body"];

function isLocalChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 46 ||
    code === 95 ||
    code === 37 ||
    code === 43 ||
    code === 45
  );
}

function isDomainChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 46 ||
    code === 45
  );
}

/** A cheap test before the full syntax check: a dot, then two or more letters at the end. */
function hasTopLevelDomain(text: string, at: number, end: number): boolean {
  let dot = end - 1;
  while (dot > at + 1 && text.charCodeAt(dot) !== 46) {
    const code = text.charCodeAt(dot) | 0x20;
    if (code < 97 || code > 122) return false;
    dot -= 1;
  }
  return dot > at + 1 && end - dot >= 3;
}

/** Addresses other than the recipient's and organisational mailboxes. Each '@' is expanded within its
 * neighbours, so the scans never overlap: linear. */
function scanEmails(
  text: string,
  field: MessageField,
  message: VerifyRequest,
  views: TextViews,
  findings: Findings,
) {
  const recipient = message.recipient.toLowerCase();
  for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1)) {
    let start = at;
    while (start > 0 && at - start < 64 && isLocalChar(text.charCodeAt(start - 1))) start -= 1;
    let end = at + 1;
    while (end < text.length && end - at <= 253 && isDomainChar(text.charCodeAt(end))) end += 1;
    while (start < at && text.charCodeAt(start) === 46) start += 1;
    while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end -= 1;
    if (start === at || !hasTopLevelDomain(text, at, end)) continue;
    const address = text.slice(start, end);
    if (addressProblem(address) !== undefined) continue;
    if (address.toLowerCase() === recipient || isRoleAddress(address)) continue;
    findings.add("warn", "medium", `someone else's email address in ${field}`, () =>
      views.span(field, start, end),
    );
  }
}

const IBAN_START = /[A-Za-z]{2}[0-9]{2}/g;

/** IBANs, compact or in groups of four, that pass the mod-97 check. */
function scanIbans(text: string, field: MessageField, views: TextViews, findings: Findings) {
  IBAN_START.lastIndex = 0;
  for (let match = IBAN_START.exec(text); match; match = IBAN_START.exec(text)) {
    const start = match.index;
    const length = ibanLength(match[0].slice(0, 2));
    if (length === undefined || isWordAt(text, start - 1)) continue;
    const end = readIban(text, start, length);
    if (end < 0 || isWordAt(text, end)) continue;
    const compact = text.slice(start, end).replaceAll(" ", "").toUpperCase();
    const masked = `${compact.slice(0, 4)}…${compact.slice(-4)}`;
    findings.add("warn", "medium", `a bank account number (IBAN) in ${field}`, () =>
      views.span(field, start, end, masked),
    );
    IBAN_START.lastIndex = end;
  }
}

/**
 * Personal data of people other than the recipient: email addresses, phone numbers, payment card
 * numbers (Luhn and network prefix) and IBANs (mod 97).
 */
export const checkPersonalData: Check = (message, { views }) => {
  const findings = createFindings();
  for (const field of FIELDS) {
    const text = views.text(field);
    scanEmails(text, field, message, views, findings);
    // Phone, card and account numbers all hold digits; most text has none.
    if (!hasDigit(text)) continue;
    scanNumbers(text, field, views, findings);
    scanIbans(text, field, views, findings);
  }
  return findings.result(
    ID,
    NAME,
    "No third-party email addresses, phone numbers, card numbers or IBANs.",
    "Remove personal data that belongs to someone else, unless they agreed to share it with this recipient.",
  );
};

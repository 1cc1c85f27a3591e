// Runs of digits and phone punctuation: payment card numbers and phone numbers.

import type { MessageField } from "../../../pipeline/domain/verify-request.ts";
import { isCardNumber } from "./account-numbers.ts";
import type { Findings } from "./check-types.ts";
import { isWordAt } from "./normalize.ts";
import type { TextViews } from "./text-views.ts";

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

// 15 digits (E.164) with a separator between each pair still fits.
const MAX_PHONE_LENGTH = 32;
const MIN_PHONE_DIGITS = 8;
const MAX_PHONE_DIGITS = 15;
const SEPARATORS = new Set([" ", "-", ".", "/", "(", ")", ") ", " (", ")-"]);
const DATE = /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/;
const THOUSANDS = /^[1-9]\d{0,2}(?:[.,]\d{3})+$/;

function isPhoneChar(code: number): boolean {
  // digits, space, + ( ) - . /
  return (
    isDigit(code) ||
    code === 32 ||
    code === 43 ||
    code === 40 ||
    code === 41 ||
    code === 45 ||
    code === 46 ||
    code === 47
  );
}

function looksLikePhone(run: string): boolean {
  const groups = run.match(/\d{1,20}/g) ?? [];
  const digits = groups.join("").length;
  if (digits < MIN_PHONE_DIGITS || digits > MAX_PHONE_DIGITS || run.lastIndexOf("+") > 0) return false;
  const separators = run.replace(/^\+/, "").match(/[^\d]{1,20}/g) ?? [];
  if (separators.some((separator) => !SEPARATORS.has(separator))) return false;
  if (separators.length === 0 && !run.startsWith("+")) return false;
  if (DATE.test(run) || THOUSANDS.test(run)) return false;
  if (groups.every((group) => group.length === 4 && /^(?:19|20)/.test(group))) return false;
  return groups.some((group) => group.length >= 3) || groups.length >= 5;
}

interface Group {
  start: number;
  end: number;
}

// Cards are written whole or in groups of three or more digits (4-4-4-4, 4-6-5).
const MIN_CARD_GROUP = 3;
const CARD_START = /[2-6]/;

/** Card numbers inside a run of digit groups joined by single spaces or dashes; returns how many. */
function scanCards(
  text: string,
  groups: readonly Group[],
  field: MessageField,
  views: TextViews,
  findings: Findings,
) {
  let found = 0;
  for (let first = 0; first < groups.length; first++) {
    const head = groups[first] as Group;
    if (head.end - head.start < MIN_CARD_GROUP || !CARD_START.test(text.charAt(head.start))) continue;
    let digits = "";
    for (let last = first; last < groups.length && last - first < 7; last++) {
      const group = groups[last] as Group;
      if (group.end - group.start < MIN_CARD_GROUP) break;
      if (last > first) {
        const gap = text.slice((groups[last - 1] as Group).end, group.start);
        if (gap !== " " && gap !== "-") break;
      }
      digits += text.slice(group.start, group.end);
      if (digits.length > 19) break;
      if (isCardNumber(digits)) {
        const start = (groups[first] as Group).start;
        const masked = `•••• ${digits.slice(-4)}`;
        findings.add("fail", "critical", `a payment card number in ${field}`, () =>
          views.span(field, start, group.end, masked),
        );
        found += 1;
        first = last;
        break;
      }
    }
  }
  return found;
}

const DIGITS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

/** True when `text` holds an ASCII digit: ten native searches beat one pass in JavaScript. */
export function hasDigit(text: string): boolean {
  return DIGITS.some((digit) => text.includes(digit));
}

const RUN_START = /[0-9+(]/g;

/**
 * Runs of digits and phone punctuation, each read once: card numbers first, then phone numbers. A
 * run without digits holds neither: callers skip texts without digits (see hasDigit).
 */
export function scanNumbers(text: string, field: MessageField, views: TextViews, findings: Findings) {
  RUN_START.lastIndex = 0;
  for (let found = RUN_START.exec(text); found; found = RUN_START.exec(text)) {
    const i = found.index;
    let end = i;
    let digits = 0;
    while (end < text.length && isPhoneChar(text.charCodeAt(end))) {
      if (isDigit(text.charCodeAt(end))) digits += 1;
      end += 1;
    }
    const runEnd = end;
    while (end > i && !isDigit(text.charCodeAt(end - 1)) && text.charCodeAt(end - 1) !== 41) end -= 1;
    const glued = isWordAt(text, i - 1) || isWordAt(text, end) || /[/=#_:]/.test(text.charAt(i - 1));
    // With fewer digits than a phone number has (a card number has more) there is nothing to find.
    if (digits >= MIN_PHONE_DIGITS && !glued && end > i) {
      const groups: Group[] = [];
      for (let k = i; k < end; k++) {
        if (!isDigit(text.charCodeAt(k))) continue;
        const start = k;
        while (k < end && isDigit(text.charCodeAt(k))) k += 1;
        groups.push({ start, end: k });
      }
      const cards = scanCards(text, groups, field, views, findings);
      // The digit count is looksLikePhone's first test, asked here before it builds any string.
      const phoneSized = digits <= MAX_PHONE_DIGITS && end - i <= MAX_PHONE_LENGTH;
      if (cards === 0 && phoneSized && looksLikePhone(text.slice(i, end))) {
        const start = i;
        const stop = end;
        findings.add("warn", "low", `a phone number in ${field}`, () => views.span(field, start, stop));
      }
    }
    // The unit at runEnd is no phone character, so no run starts there.
    RUN_START.lastIndex = runEnd + 1;
  }
}

// Per-request views of the message fields, shared by the checks and each computed on first use: the
// folded text that phrase matching runs on, the phrases found in it, and code point offsets for evidence.

import type { MessageField, Span, VerifyRequest } from "../../../pipeline/domain/verify-request.ts";
import { isAscii } from "./ascii.ts";
import { foldText } from "./fold-text.ts";
import { findKnownPhrases, type KnownPhraseHits } from "./known-phrases.ts";
import { type NormalizedText, normalizeForMatch } from "./normalize.ts";

/** Longest evidence text echoed back; the offsets still cover the whole span. */
const MAX_SPAN_TEXT = 200;

export interface TextViews {
  text(field: MessageField): string;
  /** The field folded for matching: the text of `normalizeForMatch`. */
  folded(field: MessageField): string;
  /** The checks' fixed phrase lists in the folded field, all found in one pass. */
  knownPhrases(field: MessageField): KnownPhraseHits;
  /**
   * False only when the field surely lacks `literal` (lower-case ASCII without whitespace) in every
   * mix of cases: the field is ASCII, so its folded view is its lower case with spaces collapsed, and
   * that lacks it. A pattern that ignores case scans every position; this asks natively first.
   */
  mayHold(field: MessageField, literal: string): boolean;
  /** Evidence for `[start, end)` of a field in UTF-16 indices; `shown` replaces the echoed text. */
  span(field: MessageField, start: number, end: number, shown?: string): Span;
  /** Evidence for `[start, end)` of the folded view of a field. */
  foldedSpan(field: MessageField, start: number, end: number): Span;
}

function codePointIndex(text: string): (index: number) => number {
  if (!/[\uD800-\uDFFF]/.test(text)) return (index) => index;
  const table = new Int32Array(text.length + 1);
  let count = 0;
  for (let i = 0; i < text.length; i++, count++) {
    table[i] = count;
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i += 1;
      table[i] = count;
    }
  }
  table[text.length] = count;
  return (index) => table[index] ?? count;
}

function clip(text: string): string {
  if (text.length <= MAX_SPAN_TEXT) return text;
  return `${text.slice(0, MAX_SPAN_TEXT - 1)}…`;
}

/** A per-field cache: one slot per field, filled on first use. */
function perField<T>(compute: (field: MessageField) => T): (field: MessageField) => T {
  const slots: Partial<Record<MessageField, T>> = {};
  return (field) => {
    let value = slots[field];
    if (value === undefined) {
      value = compute(field);
      slots[field] = value;
    }
    return value;
  };
}

export function createTextViews(message: VerifyRequest): TextViews {
  const fields: Record<MessageField, string> = {
    subject: message.subject,
    body: message.body,
    recipient: message.recipient,
    campaign: message.campaign,
  };
  const folded = perField((field) => foldText(fields[field]));
  const knownPhrases = perField((field) => findKnownPhrases(folded(field)));
  const ascii = perField((field) => isAscii(fields[field]));
  // The offset tables cost several times the folding: only evidence from the folded view needs them.
  const normalized = perField<NormalizedText>((field) => normalizeForMatch(fields[field]));
  const toCodePoint = perField((field) => codePointIndex(fields[field]));
  const views: TextViews = {
    text: (field) => fields[field],
    folded,
    knownPhrases,
    mayHold: (field, literal) => !ascii(field) || folded(field).includes(literal),
    span(field, start, end, shown) {
      const text = shown ?? clip(fields[field].slice(start, end));
      const convert = toCodePoint(field);
      return { field, start: convert(start), end: convert(end), text };
    },
    foldedSpan(field, start, end) {
      const view = normalized(field);
      const from = view.start[start] ?? 0;
      const to = view.end[end - 1] ?? from;
      return views.span(field, from, to);
    },
  };
  return views;
}

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

type Slots<T> = Partial<Record<MessageField, T>>;

// A class, not closures: every request makes one, and most views it never asks for.
class Views implements TextViews {
  private readonly fields: Record<MessageField, string>;
  // One slot per field and view, filled on first use.
  private readonly foldedSlots: Slots<string> = {};
  private readonly knownSlots: Slots<KnownPhraseHits> = {};
  private readonly asciiSlots: Slots<boolean> = {};
  // The offset tables cost several times the folding: only evidence from the folded view needs them.
  private readonly normalizedSlots: Slots<NormalizedText> = {};
  private readonly codePointSlots: Slots<(index: number) => number> = {};

  constructor(message: VerifyRequest) {
    this.fields = {
      subject: message.subject,
      body: message.body,
      recipient: message.recipient,
      campaign: message.campaign,
    };
  }

  text(field: MessageField): string {
    return this.fields[field];
  }

  folded(field: MessageField): string {
    this.foldedSlots[field] ??= foldText(this.fields[field]);
    return this.foldedSlots[field];
  }

  knownPhrases(field: MessageField): KnownPhraseHits {
    this.knownSlots[field] ??= findKnownPhrases(this.folded(field));
    return this.knownSlots[field];
  }

  mayHold(field: MessageField, literal: string): boolean {
    this.asciiSlots[field] ??= isAscii(this.fields[field]);
    return !this.asciiSlots[field] || this.folded(field).includes(literal);
  }

  span(field: MessageField, start: number, end: number, shown?: string): Span {
    const text = shown ?? clip(this.fields[field].slice(start, end));
    this.codePointSlots[field] ??= codePointIndex(this.fields[field]);
    const convert = this.codePointSlots[field];
    return { field, start: convert(start), end: convert(end), text };
  }

  foldedSpan(field: MessageField, start: number, end: number): Span {
    this.normalizedSlots[field] ??= normalizeForMatch(this.fields[field]);
    const view = this.normalizedSlots[field];
    const from = view.start[start] ?? 0;
    const to = view.end[end - 1] ?? from;
    return this.span(field, from, to);
  }
}

export function createTextViews(message: VerifyRequest): TextViews {
  return new Views(message);
}

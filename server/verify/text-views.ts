// Per-request views of the message fields, built once and shared by the checks: code point offsets for
// evidence and the normalized text that phrase matching runs on.

import type { MessageField, Span, VerifyRequest } from "../../pipeline/domain/verify-request.ts";
import { type NormalizedText, normalizeForMatch } from "./normalize.ts";

/** Longest evidence text echoed back; the offsets still cover the whole span. */
const MAX_SPAN_TEXT = 200;

export interface TextViews {
  text(field: MessageField): string;
  /** The field folded for matching (see `normalizeForMatch`), computed on first use. */
  normalized(field: MessageField): NormalizedText;
  /** Evidence for `[start, end)` of a field in UTF-16 indices; `shown` replaces the echoed text. */
  span(field: MessageField, start: number, end: number, shown?: string): Span;
  /** Evidence for `[start, end)` of the normalized view of a field. */
  normalizedSpan(field: MessageField, start: number, end: number): Span;
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

export function createTextViews(message: VerifyRequest): TextViews {
  const fields: Record<MessageField, string> = {
    subject: message.subject,
    body: message.body,
    recipient: message.recipient,
    campaign: message.campaign,
  };
  const normalizedCache = new Map<MessageField, NormalizedText>();
  const indexCache = new Map<MessageField, (index: number) => number>();
  const toCodePoint = (field: MessageField, index: number): number => {
    let convert = indexCache.get(field);
    if (!convert) {
      convert = codePointIndex(fields[field]);
      indexCache.set(field, convert);
    }
    return convert(index);
  };
  const views: TextViews = {
    text: (field) => fields[field],
    normalized(field) {
      let view = normalizedCache.get(field);
      if (!view) {
        view = normalizeForMatch(fields[field]);
        normalizedCache.set(field, view);
      }
      return view;
    },
    span(field, start, end, shown) {
      const text = shown ?? clip(fields[field].slice(start, end));
      return { field, start: toCodePoint(field, start), end: toCodePoint(field, end), text };
    },
    normalizedSpan(field, start, end) {
      const view = views.normalized(field);
      const from = view.start[start] ?? 0;
      const to = view.end[end - 1] ?? from;
      return views.span(field, from, to);
    },
  };
  return views;
}

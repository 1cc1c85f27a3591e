// The view of a text that phrase and term matching runs on, mapped back to the original text.

import { fold, IGNORED, infoOf, SPACING, widthOf } from "./code-point-info.ts";

/** Text folded for matching, with every unit's origin in the original (UTF-16 indices, end exclusive). */
export interface NormalizedText {
  text: string;
  start: Int32Array;
  end: Int32Array;
}

/** Growable output: folded UTF-16 units and, per unit, its origin in the original text. */
class Builder {
  units: Uint16Array;
  start: Int32Array;
  end: Int32Array;
  length = 0;
  lastWasSpace = false;

  constructor(capacity: number) {
    this.units = new Uint16Array(capacity);
    this.start = new Int32Array(capacity);
    this.end = new Int32Array(capacity);
  }

  push(unit: number, from: number, to: number): void {
    if (this.length === this.units.length) this.grow();
    this.units[this.length] = unit;
    this.start[this.length] = from;
    this.end[this.length] = to;
    this.length += 1;
    this.lastWasSpace = false;
  }

  pushSpace(from: number, to: number): void {
    if (this.lastWasSpace) {
      this.end[this.length - 1] = to;
      return;
    }
    this.push(0x20, from, to);
    this.lastWasSpace = true;
  }

  private grow(): void {
    const size = this.units.length * 2 + 16;
    const units = new Uint16Array(size);
    const start = new Int32Array(size);
    const end = new Int32Array(size);
    units.set(this.units);
    start.set(this.start);
    end.set(this.end);
    this.units = units;
    this.start = start;
    this.end = end;
  }

  finish(): NormalizedText {
    let text = "";
    // fromCharCode takes its units as arguments; chunks keep the argument count modest.
    for (let at = 0; at < this.length; at += 4096) {
      const chunk = this.units.subarray(at, Math.min(at + 4096, this.length));
      // apply takes the typed array as it is; spreading it first costs eight times as much.
      text += String.fromCharCode.apply(null, chunk as unknown as number[]);
    }
    return { text, start: this.start.slice(0, this.length), end: this.end.slice(0, this.length) };
  }
}

/**
 * NFKC, lower case, default-ignorable characters (zero-width, bidi controls, soft hyphen...) removed,
 * whitespace runs collapsed to one space. Linear in the input.
 */
export function normalizeForMatch(original: string): NormalizedText {
  const length = original.length;
  const out = new Builder(length + 16);
  let i = 0;
  while (i < length) {
    const unit = original.charCodeAt(i);
    const next = i + 1 < length ? original.charCodeAt(i + 1) : 0;
    // ASCII not followed by a combining mark folds on its own: the common case, kept cheap.
    if (unit < 0x80 && next < 0x300) {
      if (unit === 0x20 || (unit >= 0x09 && unit <= 0x0d)) out.pushSpace(i, i + 1);
      else out.push(unit >= 0x41 && unit <= 0x5a ? unit + 32 : unit, i, i + 1);
      i += 1;
      continue;
    }
    const codePoint = original.codePointAt(i) ?? unit;
    const info = infoOf(codePoint);
    let j = i + widthOf(codePoint);
    if (info.kind === IGNORED) {
      i = j;
      continue;
    }
    if (info.kind === SPACING) {
      out.pushSpace(i, j);
      i = j;
      continue;
    }
    // Combining marks fold together with their base ("e" + U+0301 is "é").
    const segmentStart = i;
    while (j < length && original.charCodeAt(j) >= 0x300) {
      const following = original.codePointAt(j) ?? 0;
      if (!infoOf(following).mark) break;
      j += widthOf(following);
    }
    const folded = j === i + widthOf(codePoint) ? info.folded : fold(original.slice(i, j));
    for (let k = 0; k < folded.length; k++) out.push(folded.charCodeAt(k), segmentStart, j);
    i = j;
  }
  return out.finish();
}

const WORD = /[\p{L}\p{N}\p{M}]/uy;

/** True when the unit at `index` of `text` is part of a word; false outside the text. */
export function isWordAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  if (code < 0x80) return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122);
  WORD.lastIndex = index;
  return WORD.test(text);
}

/** True when a phrase may end at `end` as a whole word: not between two word characters. */
export function isWordEnd(text: string, end: number): boolean {
  return !(isWordAt(text, end - 1) && isWordAt(text, end));
}

/** True when `text[start, end)` is not glued to a word on a side where the phrase itself is a word. */
export function isWholeWord(text: string, start: number, end: number): boolean {
  if (isWordAt(text, start) && isWordAt(text, start - 1)) return false;
  if (isWordAt(text, end - 1) && isWordAt(text, end)) return false;
  return true;
}

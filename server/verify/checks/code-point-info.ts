import { LRUCache } from "lru-cache";

// How each code point folds for matching: the per-code-point facts `normalizeForMatch` and `foldText`
// share, cached because the Unicode property tests and NFKC cost far more than a lookup.

const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
const SPACE = /^\s$/u;
const MARK = /^\p{M}$/u;
export const ASCII_SPACE = /[\t-\r ]/;

// Typographic variants an author types without noticing; folding them keeps "Here’s" equal to "Here's".
const FOLD: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201b": "'",
  "\u02bc": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2212": "-",
};

// A base with its combining marks ("e" + U+0301) repeats as often as a single code point does, and
// NFKC is the costly part of folding it. Short segments only (at most 8 UTF-16 units, folded to a
// few more), so a bound by count is a bound in bytes.
const MAX_SEGMENT_LENGTH = 8;
const segmentCache = new LRUCache<string, string>({ max: 4096 });

function foldUncached(segment: string): string {
  const lowered = segment.normalize("NFKC").toLowerCase();
  return FOLD[lowered] ?? lowered;
}

export function fold(segment: string): string {
  if (segment.length > MAX_SEGMENT_LENGTH) return foldUncached(segment);
  let folded = segmentCache.get(segment);
  if (folded === undefined) {
    folded = foldUncached(segment);
    segmentCache.set(segment, folded);
  }
  return folded;
}

const ORDINARY = 0;
export const IGNORED = 1;
export const SPACING = 2;

export interface CodePointInfo {
  kind: typeof ORDINARY | typeof IGNORED | typeof SPACING;
  mark: boolean;
  /** The folding of the code point standing alone. */
  folded: string;
  /** True when `folded` holds ASCII whitespace ("¨" folds to " ̈"). */
  spaced: boolean;
}

// Text repeats its code points; the bound holds however many distinct code points requests bring.
const infoCache = new LRUCache<number, CodePointInfo>({ max: 8192 });

function describe(codePoint: number): CodePointInfo {
  const char = String.fromCodePoint(codePoint);
  const kind = IGNORABLE.test(char) ? IGNORED : SPACE.test(char) ? SPACING : ORDINARY;
  const folded = fold(char);
  return { kind, mark: MARK.test(char), folded, spaced: ASCII_SPACE.test(folded) };
}

// Latin-1 (accented letters, no-break space, soft hyphen) is looked up in an array.
const LATIN1 = Array.from({ length: 256 }, (_, codePoint) => describe(codePoint));

export function infoOf(codePoint: number): CodePointInfo {
  if (codePoint < 256) return LATIN1[codePoint] as CodePointInfo;
  let info = infoCache.get(codePoint);
  if (info === undefined) {
    info = describe(codePoint);
    infoCache.set(codePoint, info);
  }
  return info;
}

export function widthOf(codePoint: number): number {
  return codePoint > 0xffff ? 2 : 1;
}

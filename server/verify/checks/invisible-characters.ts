import type { MessageField, Severity } from "../../../pipeline/domain/verify-request.ts";
import { isAscii } from "./ascii.ts";
import { type Check, createFindings } from "./check-types.ts";

const FIELDS: readonly MessageField[] = ["subject", "body", "recipient", "campaign"];

interface Kind {
  severity: Severity;
  status: "warn" | "fail";
  what: string;
}

// Bidi overrides reorder what the reader sees (the "Trojan Source" trick); tag characters and stacked
// variation selectors carry hidden text that models read and people do not.
const REORDERING: Kind = { severity: "high", status: "fail", what: "bidirectional control characters" };
const HIDDEN_TEXT: Kind = { severity: "high", status: "fail", what: "characters that hide text" };
const INVISIBLE: Kind = { severity: "medium", status: "warn", what: "invisible characters" };

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const PICTOGRAPHIC = /\p{Extended_Pictographic}|[\u{1F3FB}-\u{1F3FF}]|\uFE0F/u;
const JOINING_LETTER = /^[\p{L}\p{M}]$/u;
const LATIN = /\p{Script=Latin}/u;

type Range = readonly [from: number, to: number];

const VARIATION_SELECTORS: readonly Range[] = [
  [0xfe00, 0xfe0f],
  [0xe0100, 0xe01ef],
];
const TAGS: Range = [0xe0000, 0xe007f];

const KINDS: readonly (readonly [Range, Kind])[] = [
  ...(
    [
      [0x202a, 0x202e],
      [0x2066, 0x2069],
    ] as const
  ).map((range) => [range, REORDERING] as const),
  [TAGS, HIDDEN_TEXT],
  ...(
    [
      [0x00ad, 0x00ad],
      [0x034f, 0x034f],
      [0x061c, 0x061c],
      [0x115f, 0x1160],
      [0x17b4, 0x17b5],
      [0x180e, 0x180e],
      [0x200b, 0x200f],
      [0x2060, 0x2064],
      [0x206a, 0x206f],
      [0x3164, 0x3164],
      [0xfeff, 0xfeff],
      [0xffa0, 0xffa0],
    ] as const
  ).map((range) => [range, INVISIBLE] as const),
];

function within([from, to]: Range, codePoint: number): boolean {
  return codePoint >= from && codePoint <= to;
}

function isVariationSelector(codePoint: number): boolean {
  return VARIATION_SELECTORS.some((range) => within(range, codePoint));
}

function isTag(codePoint: number): boolean {
  return within(TAGS, codePoint);
}

// The code points of the ranges below U+10000, looked up rather than searched.
const BMP_KINDS = new Map<number, Kind>();
for (const [[from, to], kind] of KINDS) {
  for (let codePoint = from; codePoint <= Math.min(to, 0xffff); codePoint++) BMP_KINDS.set(codePoint, kind);
}

function kindOf(codePoint: number): Kind | undefined {
  if (codePoint <= 0xffff) return BMP_KINDS.get(codePoint);
  return KINDS.find(([range]) => within(range, codePoint))?.[1];
}

/** A class of the UTF-16 units that can start one of `ranges`: astral ranges by their high surrogates. */
function unitClass(ranges: readonly Range[]): RegExp {
  const hex = (unit: number) => `\\u${unit.toString(16).padStart(4, "0")}`;
  const parts = ranges.map(([from, to]) => {
    const [low, high] = from > 0xffff ? [from, to].map((cp) => 0xd800 + ((cp - 0x10000) >> 10)) : [from, to];
    return `${hex(low ?? 0)}-${hex(high ?? 0)}`;
  });
  return new RegExp(`[${parts.join("")}]`, "g");
}

// Every other unit is ordinary: the scan jumps from candidate to candidate in native code.
const CANDIDATE = unitClass([...KINDS.map(([range]) => range), ...VARIATION_SELECTORS]);

function at(text: string, index: number): string {
  const codePoint = text.codePointAt(index);
  return codePoint === undefined ? "" : String.fromCodePoint(codePoint);
}

function before(text: string, index: number): string {
  if (index <= 0) return "";
  const low = text.charCodeAt(index - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? index - 2 : index - 1;
  return at(text, start);
}

/** Joiners that are part of writing: emoji sequences (👩‍💻) and joining scripts (Persian, Hindi...). */
function isLegitimateJoiner(text: string, index: number, codePoint: number): boolean {
  const previous = before(text, index);
  const next = at(text, index + 1);
  if (codePoint === ZWJ && PICTOGRAPHIC.test(previous) && PICTOGRAPHIC.test(next)) return true;
  return (
    (codePoint === ZWJ || codePoint === ZWNJ) &&
    JOINING_LETTER.test(previous) &&
    JOINING_LETTER.test(next) &&
    !LATIN.test(previous) &&
    !LATIN.test(next)
  );
}

/** True when a variation selector is not the single one an emoji or ideograph may carry. */
function isStackedSelector(text: string, index: number): boolean {
  const previous = text.codePointAt(index - 1) ?? 0;
  const previousPair = index >= 2 ? (text.codePointAt(index - 2) ?? 0) : 0;
  const next = text.codePointAt(index + ((text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1)) ?? 0;
  return isVariationSelector(previous) || isVariationSelector(previousPair) || isVariationSelector(next);
}

function describe(codePoints: readonly number[]): string {
  const shown = codePoints
    .slice(0, 3)
    .map((codePoint) => `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`)
    .join(", ");
  return codePoints.length > 3 ? `${shown}…` : shown;
}

/** Zero-width characters, bidi controls, soft hyphens, tag characters and other invisible code points. */
export const checkInvisibleCharacters: Check = (_message, { views }) => {
  const findings = createFindings();
  for (const field of FIELDS) {
    const text = views.text(field);
    // Nothing below U+00AD is invisible, and most messages hold nothing above U+007F.
    if (isAscii(text)) continue;
    let runStart = -1;
    let runKind: Kind | undefined;
    let runPoints: number[] = [];
    const flush = (end: number) => {
      if (runKind === undefined) return;
      const kind = runKind;
      const start = runStart;
      findings.add(kind.status, kind.severity, `${kind.what} (${describe(runPoints)}) in ${field}`, () =>
        views.span(field, start, end),
      );
      runKind = undefined;
      runPoints = [];
    };
    // Just past the last candidate: everything from there up to the next candidate is ordinary.
    let next = 0;
    CANDIDATE.lastIndex = 0;
    // test() moves lastIndex past the one-unit match without building a match array.
    while (CANDIDATE.test(text)) {
      const i = CANDIDATE.lastIndex - 1;
      if (i > next) flush(next);
      const codePoint = text.codePointAt(i) ?? 0;
      const width = codePoint > 0xffff ? 2 : 1;
      let kind = kindOf(codePoint);
      if (kind === INVISIBLE && isLegitimateJoiner(text, i, codePoint)) kind = undefined;
      if (kind === undefined && isVariationSelector(codePoint) && isStackedSelector(text, i))
        kind = HIDDEN_TEXT;
      if (kind === HIDDEN_TEXT && isTag(codePoint) && isFlagTagSequence(text, i)) kind = undefined;
      if (kind === undefined) {
        flush(i);
      } else {
        if (runKind !== undefined && runKind !== kind) flush(i);
        if (runKind === undefined) {
          runKind = kind;
          runStart = i;
        }
        runPoints.push(codePoint);
      }
      next = i + width;
      CANDIDATE.lastIndex = next;
    }
    flush(next);
  }
  return findings.result(
    "invisible_characters",
    "Invisible characters",
    "No invisible or direction-changing characters.",
    "Retype the affected text or strip these characters: readers cannot see them, filters and models can.",
  );
};

/** Subdivision flags (🏴 followed by tag letters and a cancel tag) are the one proper use of tags. */
function isFlagTagSequence(text: string, index: number): boolean {
  let k = index;
  // Walk back over tags to the base; each tag is two UTF-16 units. Bounded: flag sequences are short.
  for (let steps = 0; steps < 8 && k >= 2 && isTag(text.codePointAt(k - 2) ?? 0); steps++) k -= 2;
  return (text.codePointAt(k - 2) ?? 0) === 0x1f3f4;
}

import type { MessageField, Severity } from "../../pipeline/domain/verify-request.ts";
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

function isVariationSelector(codePoint: number): boolean {
  return (codePoint >= 0xfe00 && codePoint <= 0xfe0f) || (codePoint >= 0xe0100 && codePoint <= 0xe01ef);
}

function isTag(codePoint: number): boolean {
  return codePoint >= 0xe0000 && codePoint <= 0xe007f;
}

function kindOf(codePoint: number): Kind | undefined {
  if ((codePoint >= 0x202a && codePoint <= 0x202e) || (codePoint >= 0x2066 && codePoint <= 0x2069)) {
    return REORDERING;
  }
  if (isTag(codePoint)) return HIDDEN_TEXT;
  if (
    codePoint === 0x00ad ||
    codePoint === 0x034f ||
    codePoint === 0x061c ||
    codePoint === 0x115f ||
    codePoint === 0x1160 ||
    codePoint === 0x17b4 ||
    codePoint === 0x17b5 ||
    codePoint === 0x180e ||
    (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0x2060 && codePoint <= 0x2064) ||
    (codePoint >= 0x206a && codePoint <= 0x206f) ||
    codePoint === 0x3164 ||
    codePoint === 0xfeff ||
    codePoint === 0xffa0
  ) {
    return INVISIBLE;
  }
  return undefined;
}

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
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      // Everything below U+00AD is visible or ordinary whitespace: skip it without further work.
      if (unit < 0xad) {
        flush(i);
        continue;
      }
      const codePoint = text.codePointAt(i) ?? unit;
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
      i += width - 1;
    }
    flush(text.length);
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

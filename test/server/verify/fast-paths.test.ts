// The fast paths of the checks against simple reference implementations, on random input.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ARTIFACTS } from "../../../server/verify/checks/ai-artifact-phrases.ts";
import { countLetters } from "../../../server/verify/checks/capitals.ts";
import { foldText } from "../../../server/verify/checks/fold-text.ts";
import { findKnownPhrases } from "../../../server/verify/checks/known-phrases.ts";
import { normalizeForMatch } from "../../../server/verify/checks/normalize.ts";
import { createPhraseMatcher } from "../../../server/verify/checks/phrase-matcher.ts";
import { OPT_OUT_PHRASES, SPAM_PHRASES } from "../../../server/verify/checks/style-phrases.ts";

// Characters where folding, letter counting and matching take their special paths: whitespace of every
// kind, combining marks, default-ignorable characters, NFKC compatibility forms, context-sensitive case,
// astral letters, lone surrogates.
// biome-ignore format: a table of characters reads better packed
const TRICKY = [
  "a", "B", "z", " ", "  ", "\n", "\t", "\r", "\v", "\f", "\u001c", ".", "'", "-", "é", "É", "e\u0301",
  "\u0301", "\u0308", "\u00a8", "\u00b4", "\u02d8", " \u0301", "\u00a0", "\u2028", "\u3000", "\u200b",
  "\u200d", "\u00ad", "\ufeff", "\ufe0f", "Σ", "ς", "İ", "ß", "ẞ", "ǅ", "ﬁ", "Ｒ", "\u212b", "Ł", "µ", "ª",
  "’", "“", "”", "–", "—", "🚀", "\u{1d400}", "\u{1d41a}", "\u{e0041}", "\ud800", "\udc00",
];

const trickyText = (maxLength: number) =>
  fc
    .array(fc.oneof(fc.constantFrom(...TRICKY), fc.string({ unit: "binary", maxLength: 2 })), {
      maxLength,
    })
    .map((parts) => parts.join(""));

function lettersByRegex(text: string): { letters: number; capitals: number } {
  return {
    letters: text.replace(/[^\p{Lu}\p{Ll}\p{Lt}]+/gu, "").length,
    capitals: text.replace(/[^\p{Lu}\p{Lt}]+/gu, "").length,
  };
}

type Hit = [phrase: number, start: number, end: number];

/** Every occurrence by indexOf, in the matcher's order: by end, longest first; equal phrases once. */
function naiveHits(phrases: readonly string[], text: string): Hit[] {
  const hits: Hit[] = [];
  for (const [index, phrase] of phrases.entries()) {
    if (phrase.length === 0 || phrases.indexOf(phrase) !== index) continue;
    for (let at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
      hits.push([index, at, at + phrase.length]);
    }
  }
  return hits.sort((a, b) => a[2] - b[2] || a[1] - b[1]);
}

function scanHits(
  phrases: readonly string[],
  text: string,
  options: { maxDenseCells?: number; stopAfter?: number; canEndAt?: (end: number) => boolean } = {},
): Hit[] {
  const hits: Hit[] = [];
  createPhraseMatcher(phrases, options).scan(
    text,
    (phrase, start, end) => {
      hits.push([phrase, start, end]);
      return hits.length < (options.stopAfter ?? Number.POSITIVE_INFINITY);
    },
    options.canEndAt,
  );
  return hits;
}

describe("foldText", () => {
  it("equals the text of normalizeForMatch", () => {
    fc.assert(
      fc.property(fc.oneof(trickyText(40), fc.string({ unit: "binary", maxLength: 60 })), (text) => {
        expect(foldText(text)).toBe(normalizeForMatch(text).text);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ["plain ASCII", "Hello   World\n\nbye"],
    ["a spacing diaeresis next to spaces", "a \u00a8 b"],
    ["a combining mark after a space", "a \u0301b"],
    ["ignorables inside a space run", "a \u200b \ufeff\tb"],
    ["a final sigma", "ΟΔΟΣ ΟΔΟΣ"],
  ])("folds %s as normalizeForMatch does", (_name, text) => {
    expect(foldText(text)).toBe(normalizeForMatch(text).text);
  });
});

describe("countLetters", () => {
  it("counts what removing everything but cased letters and capitals leaves", () => {
    fc.assert(
      fc.property(fc.oneof(trickyText(80), fc.string({ unit: "binary", maxLength: 80 })), (text) => {
        expect(countLetters(text)).toEqual(lettersByRegex(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("counts long ASCII text across its four-byte words and blocks", () => {
    const text = `${"Ab!".repeat(700)}Z`;
    expect(countLetters(text)).toEqual(lettersByRegex(text));
  });
});

describe("phrase matcher fast paths", () => {
  const alphabet = fc.constantFrom("a", "b", " ", "é", "ł", "🚀");
  const word = fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((chars) => chars.join(""));
  // Long enough for the two-stream scan, which splits texts of 256 units and more.
  const text = fc.array(alphabet, { maxLength: 700 }).map((chars) => chars.join(""));

  it("reports what indexOf finds, in order, from the dense and the sparse automaton", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), text, (phrases, body) => {
        const expected = naiveHits(phrases, body);
        expect(scanHits(phrases, body)).toEqual(expected);
        expect(scanHits(phrases, body, { maxDenseCells: 0 })).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("stops where onMatch says so and skips the ends canEndAt refuses", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), text, fc.nat(20), (phrases, body, stopAfter) => {
        const canEndAt = (end: number) => body.charAt(end) !== "a";
        const expected = naiveHits(phrases, body)
          .filter(([, , end]) => canEndAt(end))
          .slice(0, stopAfter + 1);
        const options = { stopAfter: stopAfter + 1, canEndAt };
        expect(scanHits(phrases, body, options)).toEqual(expected);
        expect(scanHits(phrases, body, { ...options, maxDenseCells: 0 })).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("finds a phrase across the middle of a long text, where the two streams meet", () => {
    for (let at = 480; at < 520; at++) {
      const body = `${"x".repeat(at)}act now${"x".repeat(1000 - at)}`;
      expect(scanHits(["act now", "now"], body)).toEqual([
        [0, at, at + 7],
        [1, at + 4, at + 7],
      ]);
    }
  });
});

describe("known phrases", () => {
  const LISTS = {
    aiArtifacts: ARTIFACTS.map((artifact) => artifact.phrase),
    spam: SPAM_PHRASES,
    optOut: OPT_OUT_PHRASES,
  };
  const fragments = Object.values(LISTS)
    .flat()
    .flatMap((phrase) => [phrase, phrase.toUpperCase(), phrase.slice(0, 5), ` ${phrase.slice(3)}`]);

  it("finds in one pass what each list's own matcher finds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...fragments), fc.constantFrom(" ", "\n", "x", "é")), {
          maxLength: 60,
        }),
        (parts) => {
          const folded = foldText(parts.join(""));
          const hits = findKnownPhrases(folded);
          for (const [list, phrases] of Object.entries(LISTS)) {
            const own = scanHits(
              phrases.map((phrase) => foldText(phrase)),
              folded,
            ).map(([phrase, start, end]) => ({ phrase, start, end }));
            expect(hits[list as keyof typeof LISTS]).toEqual(own);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

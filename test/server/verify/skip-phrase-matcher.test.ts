// The skip search against the Aho-Corasick automaton it replaces for the checks' phrase lists: the same
// hits in the same order, on random lists and on texts built from the real phrases.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ARTIFACTS } from "../../../server/verify/checks/ai-artifact-phrases.ts";
import { foldText } from "../../../server/verify/checks/fold-text.ts";
import { findKnownPhrases } from "../../../server/verify/checks/known-phrases.ts";
import { createPhraseMatcher } from "../../../server/verify/checks/phrase-matcher.ts";
import type { PhraseMatcher } from "../../../server/verify/checks/phrase-trie.ts";
import { createSkipMatcher } from "../../../server/verify/checks/skip-phrase-matcher.ts";
import { OPT_OUT_PHRASES, SPAM_PHRASES } from "../../../server/verify/checks/style-phrases.ts";

type Hit = [phrase: number, start: number, end: number];

function hitsOf(
  matcher: PhraseMatcher,
  text: string,
  {
    stopAfter = Number.POSITIVE_INFINITY,
    canEndAt,
  }: { stopAfter?: number; canEndAt?: (end: number) => boolean } = {},
): Hit[] {
  const hits: Hit[] = [];
  matcher.scan(
    text,
    (phrase, start, end) => {
      hits.push([phrase, start, end]);
      return hits.length < stopAfter;
    },
    canEndAt,
  );
  return hits;
}

describe("skip phrase matcher", () => {
  // "š" and "Ā" share their low byte with "a" and NUL: the hashes read low bytes only.
  const alphabet = fc.constantFrom("a", "b", " ", "é", "ł", "🚀", "\u0161", "\u0100");
  const word = fc.array(alphabet, { maxLength: 9 }).map((chars) => chars.join(""));
  const text = fc.array(alphabet, { maxLength: 400 }).map((chars) => chars.join(""));

  it("reports what the automaton reports, in its order, whatever the shortest phrases", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 10 }), text, fc.nat(4), (phrases, body, shortPhrases) => {
        const expected = hitsOf(createPhraseMatcher(phrases), body);
        expect(hitsOf(createSkipMatcher(phrases, { shortPhrases }), body)).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it("finds phrases across the quarters its four scans start from, on texts of every small length", () => {
    const phrases = ["abcdefg", "bcdefgh", "xyzabcdefgxyz", "fgh", "gg"];
    const skip = createSkipMatcher(phrases);
    const dense = createPhraseMatcher(phrases);
    for (let length = 0; length <= 80; length++) {
      for (const at of [0, 1, 2, 3, 5, 6, 7, 8]) {
        // A phrase laid over each boundary n/4, n/2 and 3n/4, shifted by `at` back from it.
        const units = Array.from({ length }, () => "-");
        for (const boundary of [length >> 2, length >> 1, (length >> 1) + (length >> 2), length]) {
          const from = Math.max(0, boundary - at);
          for (let k = 0; k < 7 && from + k < length; k++) units[from + k] = "abcdefg"[k] as string;
        }
        const body = units.join("");
        expect(hitsOf(skip, body)).toEqual(hitsOf(dense, body));
      }
    }
  });

  it("stops where onMatch says so and skips the ends canEndAt refuses, as the automaton does", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), text, fc.nat(20), (phrases, body, stopAfter) => {
        const options = { stopAfter: stopAfter + 1, canEndAt: (end: number) => body.charAt(end) !== "a" };
        const expected = hitsOf(createPhraseMatcher(phrases), body, options);
        expect(hitsOf(createSkipMatcher(phrases), body, options)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("orders hundreds of overlapping hits as the automaton does", () => {
    const binary = fc.constantFrom("a", "b");
    const dense = (maxLength: number) => fc.array(binary, { maxLength }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(
        fc.array(dense(9), { minLength: 4, maxLength: 10 }),
        dense(400),
        fc.nat(4),
        (phrases, body, shortPhrases) => {
          const expected = hitsOf(createPhraseMatcher(phrases), body);
          expect(hitsOf(createSkipMatcher(phrases, { shortPhrases }), body)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    [["aaa", "aaaa", "aaaaaaa", "aaaaaaaa"], "a".repeat(50)],
    [["$$$", "act now", "now", "act now!!"], "act now!! $$$$ act now"],
    [["x"], ""],
    [["abcdefg", "abcdefg", "bcdefgh"], "abcdefgh"],
  ])("finds every overlapping occurrence of %j in %j", (phrases, body) => {
    expect(hitsOf(createSkipMatcher(phrases), body)).toEqual(hitsOf(createPhraseMatcher(phrases), body));
  });
});

describe("known phrases by the skip search", () => {
  const phrases = [...ARTIFACTS.map((artifact) => artifact.phrase), ...SPAM_PHRASES, ...OPT_OUT_PHRASES].map(
    (phrase) => foldText(phrase),
  );
  const units = [...new Set(phrases.join(""))];
  // Pieces of phrases: heads, tails and middles, so near misses and overlaps are common.
  const fragment = fc
    .tuple(fc.constantFrom(...phrases), fc.nat(40), fc.nat(40))
    .map(([phrase, from, length]) => phrase.slice(from % phrase.length, (from % phrase.length) + 1 + length));
  const piece = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...phrases) },
    { weight: 3, arbitrary: fragment },
    { weight: 4, arbitrary: fc.constantFrom(...units) },
    { weight: 1, arbitrary: fc.constantFrom("x", "\u2019", "🚀", "ß") },
  );
  const body = fc.array(piece, { maxLength: 120 }).map((parts) => parts.join(""));
  const automaton = createPhraseMatcher(phrases);
  const skip = createSkipMatcher(phrases);

  it("finds what the automaton finds on texts made of the phrases' units and fragments", () => {
    fc.assert(
      fc.property(body, (text) => {
        expect(hitsOf(skip, text)).toEqual(hitsOf(automaton, text));
      }),
      { numRuns: 1500 },
    );
  });

  it("gives each list the hits its own automaton finds", () => {
    const lists = {
      aiArtifacts: ARTIFACTS.map((artifact) => artifact.phrase),
      spam: SPAM_PHRASES,
      optOut: OPT_OUT_PHRASES,
    };
    fc.assert(
      fc.property(body, (text) => {
        const hits = findKnownPhrases(text);
        for (const [list, own] of Object.entries(lists)) {
          const expected = hitsOf(createPhraseMatcher(own.map((phrase) => foldText(phrase))), text).map(
            ([phrase, start, end]) => ({ phrase, start, end }),
          );
          expect(hits[list as keyof typeof lists]).toEqual(expected);
        }
      }),
      { numRuns: 200 },
    );
  });
});

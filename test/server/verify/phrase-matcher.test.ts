import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeForMatch } from "../../../server/verify/checks/normalize.ts";
import { createPhraseMatcher } from "../../../server/verify/checks/phrase-matcher.ts";

function naive(phrases: readonly string[], text: string): string[] {
  const hits: string[] = [];
  for (const [index, phrase] of phrases.entries()) {
    if (phrase.length === 0 || phrases.indexOf(phrase) !== index) continue;
    for (let at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
      hits.push(`${index}:${at}:${at + phrase.length}`);
    }
  }
  return hits.sort();
}

function scanned(phrases: readonly string[], text: string): string[] {
  const hits: string[] = [];
  createPhraseMatcher(phrases).scan(text, (phrase, start, end) => {
    hits.push(`${phrase}:${start}:${end}`);
  });
  return hits.sort();
}

describe("phrase matcher", () => {
  it.each([
    [["he", "she", "his", "hers"], "ushers"],
    [["a", "aa", "aaa"], "aaaa"],
    [["abc", "bc", "c"], "xabcx"],
    [[".*", "(a|b)"], "x.*y(a|b)"],
    [["", "x"], "xx"],
  ])("finds every occurrence of %j in %j", (phrases, text) => {
    expect(scanned(phrases, text)).toEqual(naive(phrases, text));
  });

  it("agrees with indexOf on arbitrary phrases and texts", () => {
    const alphabet = fc.constantFrom("a", "b", "c", " ", "é", "🚀");
    const word = fc.array(alphabet, { maxLength: 5 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 8 }),
        fc.array(alphabet, { maxLength: 60 }),
        (phrases, chars) => {
          const text = chars.join("");
          expect(scanned(phrases, text)).toEqual(naive(phrases, text));
        },
      ),
    );
  });
});

describe("normalizeForMatch", () => {
  it.each([
    ["ACME", "acme"],
    ["\uFF21\uFF23\uFF2D\uFF25", "acme"],
    ["a\u200Bc\u200Cm\u200De\u2060\uFEFF\u00AD", "acme"],
    ["two   spaces\n\tand\u00A0more", "two spaces and more"],
    ["cafe\u0301", "café"],
    ["Here\u2019s \u201Cit\u201D \u2013 ok", 'here\'s "it" - ok'],
    ["\uFB01le", "file"],
  ])("folds %j to %j", (input, expected) => {
    expect(normalizeForMatch(input).text).toBe(expected);
  });

  it("maps every folded unit back into the original", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), (text) => {
        const view = normalizeForMatch(text);
        expect(view.start.length).toBe(view.text.length);
        for (let i = 0; i < view.text.length; i++) {
          const start = view.start[i] ?? -1;
          const end = view.end[i] ?? -1;
          expect(start).toBeGreaterThanOrEqual(0);
          expect(end).toBeGreaterThan(start);
          expect(end).toBeLessThanOrEqual(text.length);
          if (i > 0) expect(start).toBeGreaterThanOrEqual(view.start[i - 1] ?? 0);
        }
      }),
    );
  });
});

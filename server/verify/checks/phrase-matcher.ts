// Aho-Corasick over UTF-16 units: all phrases in one pass, linear in the text plus the matches reported.
// Phrases are plain text, never patterns, so a redlist term cannot smuggle in a regular expression.

import { createDenseMatcher } from "./dense-phrase-matcher.ts";
import {
  buildPhraseTrie,
  endsPhrase,
  type PhraseMatcher,
  type PhraseTrie,
  reportPhrases,
} from "./phrase-trie.ts";

// A dense table reads one array cell per unit of text, several times faster than a map lookup per
// unit and the walks along fail links. Beyond this many cells (1 MB; the checks' own lists take 0.8 MB)
// a long redlist falls back to the sparse trie, so the 32 cached redlists stay small.
const MAX_DENSE_CELLS = 1 << 18;

/** The plain automaton: one map lookup per unit, and more along fail links. */
function createSparseMatcher(trie: PhraseTrie): PhraseMatcher {
  return {
    scan(text, onMatch, canEndAt) {
      let node = 0;
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        let next = trie.child(node, unit);
        while (next === undefined && node !== 0) {
          node = trie.fail[node] ?? 0;
          next = trie.child(node, unit);
        }
        node = next ?? 0;
        if (!endsPhrase(trie, node) || (canEndAt && !canEndAt(i + 1))) continue;
        if (!reportPhrases(trie, node, i + 1, onMatch)) return;
      }
    },
  };
}

/**
 * Builds a matcher; equal phrases report the lowest index. Empty phrases never match. `maxDenseCells`
 * bounds the dense table (tests lower it to exercise the sparse matcher).
 */
export function createPhraseMatcher(
  phrases: readonly string[],
  { maxDenseCells = MAX_DENSE_CELLS }: { maxDenseCells?: number } = {},
): PhraseMatcher {
  const trie = buildPhraseTrie(phrases);
  const units = new Set<number>();
  for (const phrase of phrases) for (let k = 0; k < phrase.length; k++) units.add(phrase.charCodeAt(k));
  if (trie.depth.length * (units.size + 1) > maxDenseCells) return createSparseMatcher(trie);
  return createDenseMatcher(trie, [...units]);
}

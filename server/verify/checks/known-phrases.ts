// The fixed phrase lists of the checks, matched together: one pass over a folded field finds every list's
// phrases, and the text views keep the hits for each check that asks.

import { ARTIFACTS } from "./ai-artifact-phrases.ts";
import { foldText } from "./fold-text.ts";
import { createSkipMatcher } from "./skip-phrase-matcher.ts";
import { OPT_OUT_PHRASES, SPAM_PHRASES } from "./style-phrases.ts";

const LISTS = {
  aiArtifacts: ARTIFACTS.map((artifact) => artifact.phrase),
  spam: SPAM_PHRASES,
  optOut: OPT_OUT_PHRASES,
  // Not a finding: the word every "Subject:" line holds, so the line search skips bodies without it.
  subjectWord: ["subject"],
} as const;
type ListName = keyof typeof LISTS;

/** An occurrence of a list's phrase (its index in the list) at `[start, end)` of the folded text. */
export interface PhraseHit {
  phrase: number;
  start: number;
  end: number;
}

/**
 * Every occurrence, overlapping ones and words glued to others included (the checks that want whole
 * words test that), in order of their end, longest first among equal ends.
 */
export type KnownPhraseHits = Record<ListName, PhraseHit[]>;

interface Owner {
  list: ListName;
  phrase: number;
}

// One matcher phrase per distinct folded text, reported to each list that holds it, under the lowest
// index within that list, as a matcher of the list alone would report it.
const matcherPhrases: string[] = [];
const owners: Owner[][] = [];
const ids = new Map<string, number>();
for (const [list, phrases] of Object.entries(LISTS) as [ListName, readonly string[]][]) {
  for (const [phrase, text] of phrases.entries()) {
    const folded = foldText(text);
    let id = ids.get(folded);
    if (id === undefined) {
      id = matcherPhrases.length;
      ids.set(folded, id);
      matcherPhrases.push(folded);
      owners.push([]);
    }
    const shared = owners[id] ?? [];
    if (!shared.some((owner) => owner.list === list)) shared.push({ list, phrase });
  }
}
// All but two of the phrases are seven units or longer: a skip search reads a fraction of the text,
// where the automaton reads all of it.
const MATCHER = createSkipMatcher(matcherPhrases);

/** The hits of every list in `folded`, the output of `foldText`. */
export function findKnownPhrases(folded: string): KnownPhraseHits {
  const hits: KnownPhraseHits = { aiArtifacts: [], spam: [], optOut: [], subjectWord: [] };
  MATCHER.scan(folded, (id, start, end) => {
    for (const { list, phrase } of owners[id] ?? []) hits[list].push({ phrase, start, end });
  });
  return hits;
}

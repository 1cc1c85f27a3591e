import { LRUCache } from "lru-cache";
import type { MessageField } from "../../../pipeline/domain/verify-request.ts";
import { type Check, createFindings, quoteText, skipped } from "./check-types.ts";
import { foldText } from "./fold-text.ts";
import { isWholeWord, isWordEnd } from "./normalize.ts";
import { createPhraseMatcher } from "./phrase-matcher.ts";
import type { PhraseMatcher } from "./phrase-trie.ts";

const ID = "redlist";
const NAME = "Redlisted terms";
const FIELDS: readonly MessageField[] = ["subject", "body"];
// Overlapping terms ("a", "a a", "a a a"...) can match many times per position; the verdict is settled
// long before this many.
const MAX_MATCHES = 1000;

interface CompiledRedlist {
  terms: string[];
  matcher: PhraseMatcher;
}

// An agent sends the same redlist with every message; compiling 200 terms costs more than the scan.
// Keyed by the validated redlist, bounded in bytes: the key, and the terms again in the matcher.
const COMPILED_BYTES = 2 * 1024 * 1024;
const compiled = new LRUCache<string, CompiledRedlist>({
  maxSize: COMPILED_BYTES,
  sizeCalculation: (_entry, key) => Math.max(1, key.length * 8),
});

function compile(redlist: readonly string[]): CompiledRedlist {
  const key = redlist.join("\u0000");
  const cached = compiled.get(key);
  if (cached) return cached;
  const terms = [...new Set(redlist.map((term) => foldText(term).trim()).filter((term) => term.length > 0))];
  const entry = { terms, matcher: createPhraseMatcher(terms) };
  compiled.set(key, entry);
  return entry;
}

/** Whole-word occurrence of `term` in `text`, both already folded. */
function containsWord(text: string, term: string): boolean {
  for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + 1)) {
    if (isWholeWord(text, at, at + term.length)) return true;
  }
  return false;
}

/**
 * A redlisted term in subject or body fails, unless the recipient's address contains it (writing to
 * acme.com about Acme is fine). Matching ignores case, NFKC differences and zero-width characters;
 * terms are plain text.
 */
export const checkRedlist: Check = (message, { views }) => {
  const { terms, matcher } = compile(message.options.redlist);
  if (terms.length === 0) return skipped(ID, NAME, "No redlist terms were given.");
  const recipient = views.folded("recipient");
  const exempt = new Set(
    terms.filter(
      (term) => containsWord(recipient, term) || containsWord(recipient, term.replaceAll(" ", "")),
    ),
  );
  const findings = createFindings();
  let stopped = false;
  for (const field of FIELDS) {
    const text = views.folded(field);
    matcher.scan(
      text,
      (phrase, start, end) => {
        const term = terms[phrase] ?? "";
        if (exempt.has(term) || !isWholeWord(text, start, end)) return true;
        findings.add("fail", "high", `redlisted term ${quoteText(term)} in ${field}`, () =>
          views.foldedSpan(field, start, end),
        );
        stopped = findings.count >= MAX_MATCHES;
        return !stopped;
      },
      (end) => isWordEnd(text, end),
    );
    if (stopped) break;
  }
  if (stopped) findings.add("fail", "high", `counting stopped after ${MAX_MATCHES} matches`);
  const exemptNote =
    exempt.size > 0
      ? ` Exempt because the recipient address contains them: ${[...exempt].map((term) => quoteText(term)).join(", ")}.`
      : "";
  return findings.result(
    ID,
    NAME,
    `None of the ${terms.length} redlisted terms appears in subject or body.${exemptNote}`,
    `Remove or reword these terms before sending.${exemptNote}`,
    exempt.size === 0,
  );
};

import { z } from "zod";
import { normalizeArxivRef } from "./arxiv-id.ts";
import { parseTerm } from "./text-signals.ts";

export const WATCHLIST_LIMITS = { papers: 500, authors: 100, terms: 100 } as const;

/** `PUT /v1/bench/watchlist`: every list optional (an absent list is stored empty). */
export const WatchlistRequestSchema = z.object({
  papers: z
    .array(z.string().min(1).max(300))
    .max(WATCHLIST_LIMITS.papers)
    .optional()
    .describe("arXiv ids in any form: 2401.12345, 2401.12345v2, arXiv:2401.12345, abs or pdf URLs"),
  authors: z
    .array(z.string().min(1).max(120))
    .max(WATCHLIST_LIMITS.authors)
    .optional()
    .describe("author names as arXiv lists them; matched without regard to case"),
  terms: z
    .array(z.string().min(1).max(120))
    .max(WATCHLIST_LIMITS.terms)
    .optional()
    .describe(
      "words or phrases, matched as whole words in a candidate's title and abstract; `*` ends a stem",
    ),
});
export type WatchlistRequest = z.infer<typeof WatchlistRequestSchema>;

/** A firm's watchlist as stored: canonical ids, no repeats. */
export const WatchlistSchema = z.object({
  papers: z.array(z.string()).describe("canonical versionless arXiv ids"),
  authors: z.array(z.string()),
  terms: z.array(z.string()),
  updated_at: z.string().nullable().describe("null until the firm stores one"),
});
export type Watchlist = z.infer<typeof WatchlistSchema>;

export const EMPTY_WATCHLIST: Watchlist = { papers: [], authors: [], terms: [], updated_at: null };

/** Why an entry was refused: where in the body, what was sent, in words. */
export interface EntryProblem {
  loc: (string | number)[];
  input: string;
  message: string;
}

const squash = (text: string): string => text.trim().replace(/\s+/g, " ");

function unique(values: readonly string[], keyOf: (value: string) => string): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = keyOf(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Problems of watch terms (and rubric signal terms) at `loc`, as the term matcher would refuse them. */
export function termProblems(terms: readonly string[], loc: (string | number)[]): EntryProblem[] {
  return terms.flatMap((term, i) => {
    const parsed = parseTerm(squash(term));
    return "problem" in parsed ? [{ loc: [...loc, i], input: term, message: parsed.problem }] : [];
  });
}

/**
 * The stored form of a watchlist request: ids canonical (versionless, from any form `labs_paper`
 * accepts), names and terms with their spaces squashed, repeats dropped; or every entry refused.
 * @example canonicalWatchlist({ papers: ["arXiv:2401.12345v2"] }, at).value.papers // ["2401.12345"]
 */
export function canonicalWatchlist(
  request: WatchlistRequest,
  at: string,
): { ok: true; value: Watchlist } | { ok: false; problems: EntryProblem[] } {
  const problems: EntryProblem[] = [];
  const papers: string[] = [];
  (request.papers ?? []).forEach((ref, i) => {
    const id = normalizeArxivRef(ref);
    if (id === undefined) {
      problems.push({ loc: ["papers", i], input: ref, message: "not an arXiv id or arXiv URL" });
    } else papers.push(id);
  });
  const terms = (request.terms ?? []).map(squash);
  problems.push(...termProblems(request.terms ?? [], ["terms"]));
  const authors = (request.authors ?? []).map(squash);
  authors.forEach((name, i) => {
    if (name.length === 0) problems.push({ loc: ["authors", i], input: name, message: "an empty name" });
  });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      papers: unique(papers, (id) => id),
      authors: unique(authors, (name) => name.toLowerCase()),
      terms: unique(terms, (term) => term.toLowerCase()),
      updated_at: at,
    },
  };
}

// Finds rubric terms in free text. Each text is tokenized once and every token is looked up in a map
// keyed by the first word of the terms, so the cost grows with the text and not with the number of
// terms. Matching is by whole tokens (word boundaries), case-insensitive, on Unicode-normalised text.
// Tokens are compared through a hash of their normalised form and verified in place (see tokens.ts).

import { hashOf, type Tokens, tokenize, tokenWords } from "./tokens.ts";

export const FIELDS = ["title", "summary", "comment"] as const;
export type Field = (typeof FIELDS)[number];

/** A term as the rubric writes it: words, with an optional trailing `*` matching any word ending. */
export interface TermSource {
  term: string;
  key: number;
}

interface Word {
  text: string;
  hash: number;
}

interface CompiledTerm {
  rest: readonly Word[];
  prefixLast: boolean;
  key: number;
}

interface FirstWord {
  word: Word;
  /** Terms to try at every occurrence: one-word terms, and terms whose second word is a stem. */
  terms: CompiledTerm[];
  /** Longer terms by the hash of their second word: "we" starts dozens of terms, "we propose" one. */
  bySecond: Map<number, CompiledTerm[]>;
}

interface StemTerm {
  stem: string;
  key: number;
}

/** Terms compiled for lookup; build once with `compileTerms`, reuse for every text. */
export interface Matcher {
  readonly keyCount: number;
  readonly exact: ReadonlyMap<number, readonly FirstWord[]>;
  readonly stems: ReadonlyMap<number, readonly StemTerm[]>;
  /** Low 16 bits of every key in `exact` and `stems`: most words of a text are no term's start. */
  readonly exactFilter: Uint8Array;
  readonly stemFilter: Uint8Array;
}

const FILTER_MASK = 0xffff;

/** Where a key first matched, and how many times it matched in all. Offsets index `text`. */
export interface Hit {
  key: number;
  field: Field;
  text: string;
  sentenceStart: number;
  sentenceEnd: number;
  start: number;
  end: number;
  count: number;
}

const MIN_STEM = 3;

function tokenIs(tokens: Tokens, i: number, word: Word): boolean {
  if (tokens.hashes[i] !== word.hash) return false;
  const folded = tokens.anyFolded ? tokens.folded[i] : undefined;
  if (folded !== undefined) return folded === word.text;
  const start = tokens.starts[i] as number;
  return (tokens.ends[i] as number) - start === word.text.length && tokens.lower.startsWith(word.text, start);
}

function tokenStartsWith(tokens: Tokens, i: number, stem: string): boolean {
  const folded = tokens.anyFolded ? tokens.folded[i] : undefined;
  if (folded !== undefined) return folded.startsWith(stem);
  const start = tokens.starts[i] as number;
  return (tokens.ends[i] as number) - start >= stem.length && tokens.lower.startsWith(stem, start);
}

/** The tokens of a rubric term and whether its last word is a prefix, or why the term is unusable. */
export function parseTerm(term: string): { words: string[]; prefixLast: boolean } | { problem: string } {
  const prefixLast = term.endsWith("*");
  const body = prefixLast ? term.slice(0, -1) : term;
  if (body.includes("*")) return { problem: `\`*\` is allowed only at the end of a term, got \`${term}\`` };
  const words = tokenWords(body);
  if (words.length === 0) return { problem: `a term needs at least one word, got \`${term}\`` };
  const stem = words[words.length - 1] as string;
  if (prefixLast && (/[^\p{L}\p{N}]$/u.test(body) || stem.length < MIN_STEM)) {
    return {
      problem: `a \`*\` needs a word stem of ${MIN_STEM}+ characters right before it, got \`${term}\``,
    };
  }
  return { words, prefixLast };
}

// A small integer from a word's first three characters, so the lookup allocates nothing.
function stemKeyOf(text: string, at: number): number {
  return (text.charCodeAt(at) * 961 + text.charCodeAt(at + 1) * 31 + text.charCodeAt(at + 2)) | 0;
}

function word(text: string): Word {
  return { text, hash: hashOf(text, 0, text.length) };
}

/** Compiles terms into a matcher; throws on a term `parseTerm` rejects (rubric validation runs first). */
export function compileTerms(terms: readonly TermSource[], keyCount: number): Matcher {
  const exact = new Map<number, FirstWord[]>();
  const stems = new Map<number, StemTerm[]>();
  const seen = new Set<string>();
  for (const { term, key } of terms) {
    const parsed = parseTerm(term);
    if ("problem" in parsed) throw new Error(parsed.problem);
    // Spellings that tokenize alike ("tool use", "tool-use") would count one occurrence twice.
    const identity = `${key}\u0000${parsed.prefixLast}\u0000${parsed.words.join(" ")}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    const [first, ...rest] = parsed.words as [string, ...string[]];
    if (rest.length === 0 && parsed.prefixLast) {
      const list = stems.get(stemKeyOf(first, 0)) ?? [];
      list.push({ stem: first, key });
      stems.set(stemKeyOf(first, 0), list);
      // Different stems can share a key; tokenStartsWith checks the stem itself.
      continue;
    }
    const head = word(first);
    const bucket = exact.get(head.hash) ?? [];
    let entry = bucket.find((candidate) => candidate.word.text === first);
    if (!entry) {
      entry = { word: head, terms: [], bySecond: new Map() };
      bucket.push(entry);
    }
    const compiled = { rest: rest.map(word), prefixLast: parsed.prefixLast, key };
    const second = compiled.rest[0];
    if (second === undefined || (compiled.rest.length === 1 && compiled.prefixLast)) {
      entry.terms.push(compiled);
    } else {
      entry.bySecond.set(second.hash, [...(entry.bySecond.get(second.hash) ?? []), compiled]);
    }
    exact.set(head.hash, bucket);
  }
  const exactFilter = new Uint8Array(FILTER_MASK + 1);
  for (const hash of exact.keys()) exactFilter[hash & FILTER_MASK] = 1;
  const stemFilter = new Uint8Array(FILTER_MASK + 1);
  for (const stemKey of stems.keys()) stemFilter[stemKey & FILTER_MASK] = 1;
  return { keyCount, exact, stems, exactFilter, stemFilter };
}

function restMatches(term: CompiledTerm, tokens: Tokens, at: number): boolean {
  const { rest } = term;
  const sentence = tokens.sentence[at];
  for (let r = 0; r < rest.length; r++) {
    const index = at + 1 + r;
    if (index >= tokens.starts.length || tokens.sentence[index] !== sentence) return false;
    const wanted = rest[r] as Word;
    const ok =
      r === rest.length - 1 && term.prefixLast
        ? tokenStartsWith(tokens, index, wanted.text)
        : tokenIs(tokens, index, wanted);
    if (!ok) return false;
  }
  return true;
}

function record(
  hits: Array<Hit | undefined>,
  key: number,
  field: Field,
  text: string,
  tokens: Tokens,
  at: number,
  last: number,
): void {
  const seen = hits[key];
  if (seen) {
    seen.count++;
    return;
  }
  const sentence = tokens.sentence[at] as number;
  hits[key] = {
    key,
    field,
    text,
    sentenceStart: tokens.sentenceStarts[sentence] as number,
    sentenceEnd: tokens.sentenceEnds[sentence] as number,
    start: tokens.starts[at] as number,
    end: tokens.ends[last] as number,
    count: 1,
  };
}

function firstWordAt(tokens: Tokens, at: number, bucket: readonly FirstWord[]): FirstWord | undefined {
  for (const entry of bucket) if (tokenIs(tokens, at, entry.word)) return entry;
  return undefined;
}

/** What `findTerms` saw: each key's first hit (by key) and how many tokens the fields held. */
export interface Found {
  hits: Array<Hit | undefined>;
  tokenCount: number;
}

/** Finds every key's first match over the fields, in field order then text order. */
export function findTerms(matcher: Matcher, fields: ReadonlyArray<readonly [Field, string]>): Found {
  const hits: Array<Hit | undefined> = new Array(matcher.keyCount).fill(undefined);
  const useStems = matcher.stems.size > 0;
  let tokenCount = 0;
  for (const [field, text] of fields) {
    if (text.length === 0) continue;
    const tokens = tokenize(text);
    const count = tokens.starts.length;
    tokenCount += count;
    for (let at = 0; at < count; at++) {
      const hash = tokens.hashes[at] as number;
      const bucket = matcher.exactFilter[hash & FILTER_MASK] === 1 ? matcher.exact.get(hash) : undefined;
      const entry = bucket && firstWordAt(tokens, at, bucket);
      if (entry) {
        for (const term of entry.terms) {
          if (restMatches(term, tokens, at))
            record(hits, term.key, field, text, tokens, at, at + term.rest.length);
        }
        const next = at + 1 < count ? entry.bySecond.get(tokens.hashes[at + 1] as number) : undefined;
        if (next) {
          for (const term of next) {
            if (restMatches(term, tokens, at))
              record(hits, term.key, field, text, tokens, at, at + term.rest.length);
          }
        }
      }
      if (!useStems || (tokens.ends[at] as number) - (tokens.starts[at] as number) < MIN_STEM) continue;
      const folded = tokens.anyFolded ? tokens.folded[at] : undefined;
      if (folded !== undefined && folded.length < MIN_STEM) continue;
      const stemKey =
        folded === undefined ? stemKeyOf(tokens.lower, tokens.starts[at] as number) : stemKeyOf(folded, 0);
      if (matcher.stemFilter[stemKey & FILTER_MASK] !== 1) continue;
      const stemmed = matcher.stems.get(stemKey);
      if (!stemmed) continue;
      for (const term of stemmed) {
        if (tokenStartsWith(tokens, at, term.stem)) record(hits, term.key, field, text, tokens, at, at);
      }
    }
  }
  return { hits, tokenCount };
}

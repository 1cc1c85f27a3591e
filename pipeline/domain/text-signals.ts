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
  /** Which term this is, so a term said over and over counts as one mention. */
  id: number;
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
  id: number;
}

/** Terms compiled for lookup; build once with `compileTerms`, reuse for every text. */
export interface Matcher {
  readonly keyCount: number;
  readonly termCount: number;
  readonly exact: ReadonlyMap<number, readonly FirstWord[]>;
  readonly stems: ReadonlyMap<number, readonly StemTerm[]>;
  /** Low 16 bits of every key in `exact` and `stems`: most words of a text are no term's start. */
  readonly exactFilter: Uint8Array;
  readonly stemFilter: Uint8Array;
}

const FILTER_MASK = 0xffff;

/**
 * Where a key first matched, and how many times it matched in all, a term said again within REPEAT_GAP
 * tokens not counting (`agent agent agent` is one mention). Offsets index `text`.
 */
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

/**
 * Natural use of the rubric's words, measured on the 700 papers of the three released labelled days:
 * no stretch of LIST_WINDOW tokens of a title, abstract or comment fired more than 7 distinct axis
 * signals (nine in ten stay within 4), and an honest runtime description fires about 8. A stretch
 * firing more than LIST_MAX_SIGNALS is a keyword list, not a claim: its matches count for nothing.
 * Its edges go with it: the matches around it while the stretch stays above LIST_EDGE_SIGNALS.
 * Repeating one term fires no new signal; toward the one repeat-emphasis point it counts again only
 * REPEAT_GAP tokens or more after its last counted match.
 */
export const LIST_WINDOW = 20;
export const LIST_MAX_SIGNALS = 9;
export const LIST_EDGE_SIGNALS = 5;
const REPEAT_GAP = 5;

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
      list.push({ stem: first, key, id: seen.size });
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
    const compiled = { rest: rest.map(word), prefixLast: parsed.prefixLast, key, id: seen.size };
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
  return { keyCount, termCount: seen.size + 1, exact, stems, exactFilter, stemFilter };
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

/** Matches in one field, in text order: key, first and last token (flat, so a text allocates four arrays). */
interface Occurrences {
  keys: number[];
  terms: number[];
  firsts: number[];
  lasts: number[];
}

function push(found: Occurrences, term: CompiledTerm | StemTerm, at: number, last: number): void {
  found.keys.push(term.key);
  found.terms.push(term.id);
  found.firsts.push(at);
  found.lasts.push(last);
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

/** Every match of a tokenized text, in text order. */
function matchAll(matcher: Matcher, tokens: Tokens): Occurrences {
  const found: Occurrences = { keys: [], terms: [], firsts: [], lasts: [] };
  const useStems = matcher.stems.size > 0;
  const count = tokens.starts.length;
  for (let at = 0; at < count; at++) {
    const hash = tokens.hashes[at] as number;
    const bucket = matcher.exactFilter[hash & FILTER_MASK] === 1 ? matcher.exact.get(hash) : undefined;
    const entry = bucket && firstWordAt(tokens, at, bucket);
    if (entry) {
      for (const term of entry.terms) {
        if (restMatches(term, tokens, at)) push(found, term, at, at + term.rest.length);
      }
      const next = at + 1 < count ? entry.bySecond.get(tokens.hashes[at + 1] as number) : undefined;
      if (next) {
        for (const term of next) {
          if (restMatches(term, tokens, at)) push(found, term, at, at + term.rest.length);
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
      if (tokenStartsWith(tokens, at, term.stem)) push(found, term, at, at);
    }
  }
  return found;
}

/**
 * The most distinct counted keys any window of LIST_WINDOW tokens fires; with `local`, also each
 * match's highest window count above LIST_EDGE_SIGNALS. `tally` is zeroed scratch, left zeroed.
 */
function slideWindows(
  found: Occurrences,
  counted: Uint8Array | undefined,
  tally: Uint16Array,
  local: Uint8Array | undefined,
): number {
  const { keys, firsts } = found;
  const n = keys.length;
  let most = 0;
  let distinct = 0;
  let end = 0;
  for (let from = 0; from < n; from++) {
    const limit = (firsts[from] as number) + LIST_WINDOW;
    while (end < n && (firsts[end] as number) < limit) {
      const key = keys[end] as number;
      if (counted === undefined || counted[key] === 1) {
        if (tally[key] === 0) distinct++;
        tally[key] = (tally[key] as number) + 1;
      }
      end++;
    }
    if (distinct > most) most = distinct;
    if (local !== undefined && distinct > LIST_EDGE_SIGNALS) {
      const level = Math.min(distinct, 255);
      for (let i = from; i < end; i++) if ((local[i] as number) < level) local[i] = level;
    }
    const key = keys[from] as number;
    if (counted === undefined || counted[key] === 1) {
      tally[key] = (tally[key] as number) - 1;
      if (tally[key] === 0) distinct--;
    }
  }
  return most;
}

/**
 * Which matches lie in a keyword list. Every match gets the most distinct counted keys fired in a window
 * of LIST_WINDOW tokens holding it; a run of consecutive matches above LIST_EDGE_SIGNALS that reaches
 * more than LIST_MAX_SIGNALS somewhere is a list. Windows cross sentence ends, so one-word sentences do
 * not hide a list. `tally` is zeroed scratch of one slot per key, and is left zeroed.
 */
function listedMatches(
  found: Occurrences,
  counted: Uint8Array | undefined,
  tally: Uint16Array,
): Uint8Array | undefined {
  const n = found.keys.length;
  if (n <= LIST_MAX_SIGNALS) return undefined;
  // Natural text never gets there, so the common case is one pass that finds no list.
  if (slideWindows(found, counted, tally, undefined) <= LIST_MAX_SIGNALS) return undefined;
  const local = new Uint8Array(n);
  slideWindows(found, counted, tally, local);
  let listed: Uint8Array | undefined;
  for (let start = 0; start < n; ) {
    if ((local[start] as number) === 0) {
      start++;
      continue;
    }
    let stop = start;
    let peak = 0;
    while (stop < n && (local[stop] as number) > 0) peak = Math.max(peak, local[stop++] as number);
    if (peak > LIST_MAX_SIGNALS) {
      listed ??= new Uint8Array(n);
      listed.fill(1, start, stop);
    }
    start = stop;
  }
  return listed;
}

interface Scratch {
  tally: Uint16Array;
  termLast: Int32Array;
}

// Zeroed arrays per matcher, handed back zeroed by every call, rather than two allocations per text.
// Scoring is synchronous, so no two calls use them at once.
const scratches = new WeakMap<Matcher, Scratch>();

function scratchOf(matcher: Matcher): Scratch {
  let scratch = scratches.get(matcher);
  if (!scratch) {
    scratch = { tally: new Uint16Array(matcher.keyCount), termLast: new Int32Array(matcher.termCount) };
    scratches.set(matcher, scratch);
  }
  return scratch;
}

/**
 * Finds every key's first match over the fields, in field order then text order, leaving out keyword
 * lists.
 */
export function findTerms(
  matcher: Matcher,
  fields: ReadonlyArray<readonly [Field, string]>,
  /** Keys (1 at their index) whose variety marks a keyword list; absent: every key. */
  listKeys?: Uint8Array,
): Found {
  const hits: Array<Hit | undefined> = new Array(matcher.keyCount).fill(undefined);
  const { tally, termLast } = scratchOf(matcher);
  // termLast: where (token number + 1, counted across fields) each term last counted; said again right
  // away ("audit audit audit", "agent runtime agent runtime") it is one mention, not a repetition.
  const touched: number[] = [];
  let tokenBase = 1;
  let tokenCount = 0;
  for (const [field, text] of fields) {
    if (text.length === 0) continue;
    const tokens = tokenize(text);
    tokenCount += tokens.starts.length;
    const found = matchAll(matcher, tokens);
    const listed = listedMatches(found, listKeys, tally);
    for (let i = 0; i < found.keys.length; i++) {
      if (listed?.[i] === 1) continue;
      const key = found.keys[i] as number;
      const at = found.firsts[i] as number;
      const sentence = tokens.sentence[at] as number;
      const term = found.terms[i] as number;
      const last = termLast[term] as number;
      if (last > 0 && tokenBase + at - last < REPEAT_GAP) continue;
      if (last === 0) touched.push(term);
      termLast[term] = tokenBase + at;
      const seen = hits[key];
      if (seen) {
        seen.count++;
      } else {
        hits[key] = {
          key,
          field,
          text,
          sentenceStart: tokens.sentenceStarts[sentence] as number,
          sentenceEnd: tokens.sentenceEnds[sentence] as number,
          start: tokens.starts[at] as number,
          end: tokens.ends[found.lasts[i] as number] as number,
          count: 1,
        };
      }
    }
    tokenBase += tokens.starts.length + REPEAT_GAP;
  }
  for (const term of touched) termLast[term] = 0;
  return { hits, tokenCount };
}

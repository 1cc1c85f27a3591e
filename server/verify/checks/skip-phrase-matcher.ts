// A Wu-Manber search for a fixed phrase list. The automaton reads every unit of the text; this reads
// the last three units of a window as long as the shortest usual phrase and, unless they can end the
// start of some phrase, jumps up to the window's length ahead. Ordinary prose holds none of the phrases,
// so most of it is never read: on English text it is two to three times as fast as the dense automaton.

import { Buffer } from "node:buffer";
import { buildPhraseTrie, type PhraseMatcher } from "./phrase-trie.ts";

/** Units hashed together to pick a shift: three tell English words apart far better than two. */
const GRAM = 3;
const TABLE_MASK = (1 << 15) - 1;
/** The shortest phrases are searched apart; each costs one native indexOf pass over the text. */
const SHORT_PHRASES = 2;

// Hashes read the low byte of each unit: text and phrases alike, so equal units hash alike. A collision
// (a unit beyond Latin-1 cut to one within it, or two grams on one slot) only shortens a shift or costs
// a needless walk.
function gramHash(last: number, middle: number, first: number): number {
  return (last ^ (middle << 5) ^ (first << 10) ^ (first >>> 5)) & TABLE_MASK;
}

function headHash(gram: number, first: number, second: number): number {
  return (gram ^ (first << 3) ^ (second << 9) ^ (second >>> 6)) & TABLE_MASK;
}

// The text's units cut to their low byte, one byte each (what Buffer's latin1 writes), in scratch space
// grown on demand: a byte read costs less than charCodeAt.
let scratch = Buffer.alloc(0);

function lowBytes(text: string): Uint8Array {
  if (scratch.length < text.length) scratch = Buffer.alloc(Math.max(text.length, scratch.length * 2));
  scratch.write(text, 0, "latin1");
  return scratch;
}

// Beyond this many hits a comparison sort costs more than two counting passes over the text's positions.
const MAX_COMPARED = 64;

/**
 * The offsets of the triples of `hits` (phrase, start, end) by end, then by start: longest first among
 * equal ends, and equal ends and lengths mean one phrase. A text of 10,000 "$" has 9,998 hits.
 */
function orderOf(hits: readonly number[], size: number): Int32Array {
  const count = hits.length / 3;
  let order = new Int32Array(count);
  let ordered = true;
  for (let k = 0; k < count; k++) {
    order[k] = k * 3;
    if (k > 0) ordered &&= compareHits(hits, k * 3 - 3, k * 3) < 0;
  }
  // The usual case: no hit, or hits of one phrase or of phrases that do not overlap.
  if (ordered) return order;
  if (count <= MAX_COMPARED) return order.sort((a, b) => compareHits(hits, a, b));
  // By start, then stably by end.
  for (const field of [1, 2]) {
    const slots = new Int32Array(size + 2);
    for (let k = 0; k < count; k++) {
      const value = hits[(order[k] as number) + field] as number;
      slots[value + 1] = (slots[value + 1] as number) + 1;
    }
    for (let value = 1; value < slots.length; value++) {
      slots[value] = (slots[value] as number) + (slots[value - 1] as number);
    }
    const next = new Int32Array(count);
    for (let k = 0; k < count; k++) {
      const value = hits[(order[k] as number) + field] as number;
      const slot = slots[value] as number;
      next[slot] = order[k] as number;
      slots[value] = slot + 1;
    }
    order = next;
  }
  return order;
}

function compareHits(hits: readonly number[], a: number, b: number): number {
  return (
    (hits[a + 2] as number) - (hits[b + 2] as number) || (hits[a + 1] as number) - (hits[b + 1] as number)
  );
}

type OnMatch = Parameters<PhraseMatcher["scan"]>[1];
type CanEndAt = Parameters<PhraseMatcher["scan"]>[2];

/**
 * Phrases as long as the window are found by their first `window` units, the window being as long as
 * the shortest phrase once `shortPhrases` of the shortest are set apart; those are found by indexOf.
 * Reports what the Aho-Corasick matcher reports: every occurrence, overlapping ones included, in order
 * of end, longest first among equal ends, equal phrases under their lowest index. Empty phrases never
 * match.
 */
export function createSkipMatcher(
  phrases: readonly string[],
  { shortPhrases = SHORT_PHRASES }: { shortPhrases?: number } = {},
): PhraseMatcher {
  const lowest = new Map<string, number>();
  for (const [index, phrase] of phrases.entries()) {
    if (phrase.length > 0 && !lowest.has(phrase)) lowest.set(phrase, index);
  }
  const lengths = [...lowest.keys()].map((phrase) => phrase.length).sort((a, b) => a - b);
  const span = Math.max(GRAM, lengths[Math.min(shortPhrases, lengths.length - 1)] ?? GRAM);
  const short = [...lowest].filter(([phrase]) => phrase.length < span);
  // Walked from a window's start: the long phrases that start there, each under its lowest index.
  const trie = buildPhraseTrie(phrases.map((phrase) => (phrase.length >= span ? phrase : "")));

  // How far the window may move when its last gram is this one: the least distance from a gram in
  // a phrase's first `span` units to the end of those units.
  const shifts = new Uint8Array(TABLE_MASK + 1).fill(span - GRAM + 1);
  // A second filter, for a window that may be a phrase's start: its last gram with its first two units.
  const heads = new Uint8Array(TABLE_MASK + 1);
  for (const phrase of lowest.keys()) {
    if (phrase.length < span) continue;
    const unit = (k: number) => phrase.charCodeAt(k) & 0xff;
    for (let j = GRAM - 1; j < span; j++) {
      const h = gramHash(unit(j), unit(j - 1), unit(j - 2));
      shifts[h] = Math.min(shifts[h] as number, span - 1 - j);
      if (j === span - 1) heads[headHash(h, unit(0), unit(1))] = 1;
    }
  }

  /** Appends (phrase, start, end) for each long phrase that starts at `start`. */
  function walk(text: string, start: number, hits: number[]): void {
    let node: number | undefined = 0;
    for (let k = start; k < text.length; k++) {
      node = trie.child(node, text.charCodeAt(k));
      if (node === undefined) return;
      const phrase = trie.output[node] as number;
      if (phrase >= 0) hits.push(phrase, start, k + 1);
    }
  }

  /** Examines the window that ends at `i`; returns the end of the next window worth examining. */
  function step(text: string, bytes: Uint8Array, i: number, hits: number[]): number {
    const h = gramHash(bytes[i] as number, bytes[i - 1] as number, bytes[i - 2] as number);
    const shift = shifts[h] as number;
    if (shift > 0) return i + shift;
    const start = i - span + 1;
    if (heads[headHash(h, bytes[start] as number, bytes[start + 1] as number)] === 1) walk(text, start, hits);
    return i + 1;
  }

  /** Every hit as flat triples (phrase, start, end), in no particular order. */
  function collect(text: string): number[] {
    const hits: number[] = [];
    const bytes = lowBytes(text);
    // Each step waits for the shift the step before read: four scans side by side, one from each
    // quarter, keep more loads in flight than one or two (measured 15-25% faster than two on 10 KB of
    // prose). A scan may start at any window; each stops where the next one started.
    const n = text.length;
    const q1 = Math.max(span - 1, n >> 2);
    const q2 = Math.max(span - 1, n >> 1);
    const q3 = Math.max(span - 1, (n >> 1) + (n >> 2));
    let a = span - 1;
    let b = q1;
    let c = q2;
    let d = q3;
    while (a < q1 && b < q2 && c < q3 && d < n) {
      a = step(text, bytes, a, hits);
      b = step(text, bytes, b, hits);
      c = step(text, bytes, c, hits);
      d = step(text, bytes, d, hits);
    }
    while (a < q1) a = step(text, bytes, a, hits);
    while (b < q2) b = step(text, bytes, b, hits);
    while (c < q3) c = step(text, bytes, c, hits);
    while (d < n) d = step(text, bytes, d, hits);
    for (const [phrase, index] of short) {
      for (let at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
        hits.push(index, at, at + phrase.length);
      }
    }
    return hits;
  }

  return {
    scan(text: string, onMatch: OnMatch, canEndAt: CanEndAt): void {
      const hits = collect(text);
      if (hits.length === 0) return;
      for (const k of orderOf(hits, text.length)) {
        const end = hits[k + 2] as number;
        if (canEndAt !== undefined && !canEndAt(end)) continue;
        if (onMatch(hits[k] as number, hits[k + 1] as number, end) === false) return;
      }
    },
  };
}

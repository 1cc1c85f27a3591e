// The Aho-Corasick automaton as a dense table: every (node, unit class) transition resolved ahead, fail
// links included, so a step is one array read.

import { Buffer } from "node:buffer";
import { isAscii } from "./ascii.ts";
import { endsPhrase, type PhraseMatcher, type PhraseTrie, reportPhrases } from "./phrase-trie.ts";

// Below this length the second stream's warm-up outweighs what it saves.
const MIN_SPLIT = 256;
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/** True when every unit fits a byte, so the text can be read from a Latin-1 copy. */
function isLatin1(text: string): boolean {
  return isAscii(text) || !BEYOND_LATIN1.test(text);
}

/** Appends (state, end) for every phrase end in `bytes`: one unit of the text each. */
function walk(cells: Int32Array, classOf: Uint16Array, bytes: Uint8Array, hits: number[]): void {
  let state = 0;
  for (let i = 0; i < bytes.length; i++) {
    state = cells[state + (classOf[bytes[i] as number] as number)] as number;
    if (state >= 0) continue;
    state = ~state;
    hits.push(state, i + 1);
  }
}

/**
 * `walk` as two halves in one loop. Each step waits for the table read of the step before, so two
 * independent chains run almost twice as fast as one. The second half starts `overlap` bytes early, as
 * far back as the automaton remembers, to know its state where the first half ends.
 */
function walkTwo(
  cells: Int32Array,
  classOf: Uint16Array,
  bytes: Uint8Array,
  overlap: number,
  hits: number[],
) {
  const mid = bytes.length >> 1;
  const offset = mid - overlap;
  const later: number[] = [];
  let first = 0;
  let second = 0;
  for (let i = 0; i < mid; i++) {
    first = cells[first + (classOf[bytes[i] as number] as number)] as number;
    second = cells[second + (classOf[bytes[offset + i] as number] as number)] as number;
    if (first < 0) {
      first = ~first;
      hits.push(first, i + 1);
    }
    if (second < 0) {
      second = ~second;
      if (offset + i >= mid) later.push(second, offset + i + 1);
    }
  }
  for (let j = offset + mid; j < bytes.length; j++) {
    second = cells[second + (classOf[bytes[j] as number] as number)] as number;
    if (second < 0) {
      second = ~second;
      later.push(second, j + 1);
    }
  }
  for (const value of later) hits.push(value);
}

/**
 * Units that occur in no phrase share class 0. Cells hold the target node times the class count, so a
 * step is one addition; a cell is bitwise-negated when its target ends a phrase, so the scan tests one
 * sign per unit.
 */
export function createDenseMatcher(trie: PhraseTrie, units: readonly number[]): PhraseMatcher {
  const classes = units.length + 1;
  const latin1 = new Uint16Array(256);
  const other = new Map<number, number>();
  for (const [index, unit] of units.entries()) {
    if (unit < 256) latin1[unit] = index + 1;
    else other.set(unit, index + 1);
  }
  const size = trie.depth.length;
  const cells = new Int32Array(size * classes);
  const encode = (node: number) => (endsPhrase(trie, node) ? ~(node * classes) : node * classes);
  // Breadth first, so a node's fail row is complete before the node copies it.
  const queue = [0];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] ?? 0;
    const row = node * classes;
    if (node !== 0) {
      const failRow = (trie.fail[node] ?? 0) * classes;
      cells.copyWithin(row, failRow, failRow + classes);
    }
    for (const unit of trie.units[node] ?? []) {
      const child = trie.child(node, unit) ?? 0;
      cells[row + (unit < 256 ? (latin1[unit] ?? 0) : (other.get(unit) ?? 0))] = encode(child);
      queue.push(child);
    }
  }
  // The automaton's state at a position depends on the last `overlap` units only.
  const overlap = trie.depth.reduce((longest, depth) => Math.max(longest, depth), 0) - 1;

  type OnMatch = Parameters<PhraseMatcher["scan"]>[1];
  type CanEndAt = Parameters<PhraseMatcher["scan"]>[2];

  /** Reports the phrases ending at `end` in the state `cell` (not negated); false to stop. */
  const hit = (cell: number, end: number, onMatch: OnMatch, canEndAt: CanEndAt): boolean =>
    (canEndAt !== undefined && !canEndAt(end)) || reportPhrases(trie, cell / classes, end, onMatch);

  function scanLatin1(text: string, onMatch: OnMatch, canEndAt: CanEndAt): void {
    const bytes = Buffer.from(text, "latin1");
    const hits: number[] = [];
    if (bytes.length < MIN_SPLIT || overlap >= bytes.length >> 2) {
      walk(cells, latin1, bytes, hits);
    } else {
      walkTwo(cells, latin1, bytes, overlap, hits);
    }
    for (let k = 0; k < hits.length; k += 2) {
      if (!hit(hits[k] as number, hits[k + 1] as number, onMatch, canEndAt)) return;
    }
  }

  return {
    scan(text, onMatch, canEndAt) {
      if (isLatin1(text)) return scanLatin1(text, onMatch, canEndAt);
      let state = 0;
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        const cls = unit < 256 ? (latin1[unit] as number) : (other.get(unit) ?? 0);
        state = cells[state + cls] as number;
        if (state >= 0) continue;
        state = ~state;
        if (!hit(state, i + 1, onMatch, canEndAt)) return;
      }
    },
  };
}

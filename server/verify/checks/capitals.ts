// Counts of cased and capital letters, by code point, each counting its UTF-16 length: the numbers that
// removing everything but /[\p{Lu}\p{Ll}\p{Lt}]/u and /[\p{Lu}\p{Lt}]/u leaves, without building strings.

import { Buffer } from "node:buffer";
import { LRUCache } from "lru-cache";
import { isAscii } from "./ascii.ts";

const CAPITAL = /^[\p{Lu}\p{Lt}]$/u;
const LOWER = /^\p{Ll}$/u;

// Bit 0: a cased letter; bit 1: a capital.
function classify(codePoint: number): number {
  const char = String.fromCodePoint(codePoint);
  return CAPITAL.test(char) ? 3 : LOWER.test(char) ? 1 : 0;
}

const LATIN1 = Uint8Array.from({ length: 256 }, (_, unit) => classify(unit));
// Beyond Latin-1 text repeats its code points too.
const others = new LRUCache<number, number>({ max: 4096 });

function classOf(codePoint: number): number {
  if (codePoint < 256) return LATIN1[codePoint] as number;
  let value = others.get(codePoint);
  if (value === undefined) {
    value = classify(codePoint);
    others.set(codePoint, value);
  }
  return value;
}

export interface LetterCounts {
  letters: number;
  capitals: number;
}

// The text is read four bytes at a time from this scratch space, grown on demand.
let bytes = Buffer.alloc(0);
let words = new Int32Array(0);
// Bit 7 of every byte of a 32-bit word.
const HIGH_BITS = 0x80808080 | 0;
// Per-byte counts in a word stay below 256 for this many words, two a step.
const BLOCK = 254;
const NON_ASCII_RUN = /[\u0080-\uffff]+/g;

function byteSum(lanes: number): number {
  return (lanes & 0xff) + ((lanes >>> 8) & 0xff) + ((lanes >>> 16) & 0xff) + (lanes >>> 24);
}

/** Bit 7 of each byte of `word` that is an ASCII letter; every byte is below 0x80. */
function letterBits(word: number): number {
  // With bit 5 set, capitals read as small letters. Adding 0x80 - t to a byte below 0x80 sets its bit 7,
  // without a carry, exactly when it is t or more; `| 0` keeps the sums in 32-bit registers.
  const folded = word | 0x20202020;
  return ((folded + 0x1f1f1f1f) | 0) & ~((folded + 0x05050505) | 0) & HIGH_BITS; // "a" to "z"
}

/** Adds the ASCII letters among the first `size` scratch bytes, in SWAR, two words a step. */
function countAsciiBytes(size: number, counts: LetterCounts): void {
  const count = (size >>> 3) << 1;
  for (let from = 0; from < count; from += BLOCK) {
    // One count per byte lane, summed when the block ends.
    let letterLanes = 0;
    let capitalLanes = 0;
    const to = Math.min(from + BLOCK, count);
    for (let w = from; w < to; w += 2) {
      const first = words[w] as number;
      const second = words[w + 1] as number;
      const firstLetters = letterBits(first);
      const secondLetters = letterBits(second);
      letterLanes += (firstLetters >>> 7) + (secondLetters >>> 7);
      // A capital is a letter with bit 5 clear.
      capitalLanes += ((firstLetters & ~(first << 2)) >>> 7) + ((secondLetters & ~(second << 2)) >>> 7);
    }
    counts.capitals += byteSum(capitalLanes);
    counts.letters += byteSum(letterLanes);
  }
}

/** Adds the code points of `text[start, end)`, all beyond ASCII, one by one. */
function countRun(text: string, start: number, end: number, counts: LetterCounts): void {
  for (let i = start; i < end; i++) {
    const codePoint = text.codePointAt(i) ?? 0;
    const width = codePoint > 0xffff ? 2 : 1;
    const value = classOf(codePoint);
    counts.letters += (value & 1) * width;
    counts.capitals += (value >> 1) * width;
    i += width - 1;
  }
}

/** UTF-16 units in cased letters (Lu, Ll, Lt) and in capitals (Lu, Lt); lone surrogates count as neither. */
export function countLetters(text: string): LetterCounts {
  const size = (text.length + 7) & ~7;
  if (bytes.length < size) {
    bytes = Buffer.alloc(Math.max(size, bytes.length * 2));
    words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
  }
  // One byte per UTF-16 unit: the ASCII ones as they are, the others cut to their low byte.
  bytes.write(text, 0, "latin1");
  bytes.fill(0, text.length, size);
  const counts = { letters: 0, capitals: 0 };
  if (!isAscii(text)) {
    NON_ASCII_RUN.lastIndex = 0;
    for (let run = NON_ASCII_RUN.exec(text); run; run = NON_ASCII_RUN.exec(text)) {
      const end = run.index + run[0].length;
      countRun(text, run.index, end, counts);
      // Zeroed, the cut bytes count as nothing below. Runs are short: a loop beats fill()'s checks.
      for (let k = run.index; k < end; k++) bytes[k] = 0;
    }
  }
  countAsciiBytes(size, counts);
  return counts;
}

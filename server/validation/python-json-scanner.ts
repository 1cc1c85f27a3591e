// A port of CPython's JSON scanner (Modules/_json.c and json/decoder.py, 3.13/3.14): the same verdict,
// reason and character position as json.loads, and the same value, held as py-value.ts describes
// (dicts as Maps in the client's order, ints exact, whole floats as PyFloat). Slower than JSON.parse, so
// it runs only where JSON.parse failed or met an infinite number (see python-json.ts); the exact value of
// a text JSON.parse accepted comes from exact-json.ts.
import { jsonNumber } from "./py-value.ts";

/** Nesting Python reaches before RecursionError (its default recursion limit); FastAPI then answers 400. */
export const MAX_JSON_DEPTH = 1000;

/**
 * `too_deep` is Python's RecursionError and `int_too_long` the ValueError of an integer over 4300
 * digits: neither is a JSONDecodeError, so FastAPI answers both 400.
 */
export type PythonJsonResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: "invalid"; msg: string; pos: number }
  | { ok: false; reason: "too_deep" | "int_too_long" };

class DecodeError {
  readonly msg: string;
  readonly pos: number;

  constructor(msg: string, pos: number) {
    this.msg = msg;
    this.pos = pos;
  }
}

class TooDeep {}

class IntTooLong {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isWhitespace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;

const SIMPLE_ESCAPES: Record<number, number> = {
  34: 0x22,
  92: 0x5c,
  47: 0x2f,
  98: 0x08,
  102: 0x0c,
  110: 0x0a,
  114: 0x0d,
  116: 0x09,
};

function hexValue(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

// Spreading a long slice into fromCodePoint would overflow the argument limit.
function fromCodePoints(codePoints: Uint32Array, from: number, to: number): string {
  let out = "";
  for (let i = from; i < to; i += 4096)
    out += String.fromCodePoint(...codePoints.subarray(i, Math.min(to, i + 4096)));
  return out;
}

/** Positions are code point indices, as in Python's str; the text is scanned by code point. */
class Scanner {
  readonly s: Uint32Array;
  readonly len: number;
  depth = 0;

  constructor(text: string) {
    const codePoints = new Uint32Array(text.length);
    let n = 0;
    for (const ch of text) codePoints[n++] = ch.codePointAt(0) ?? 0;
    this.s = codePoints.subarray(0, n);
    this.len = n;
  }

  skipWhitespace(idx: number): number {
    while (idx < this.len && isWhitespace(this.s[idx])) idx++;
    return idx;
  }

  matches(idx: number, word: string): boolean {
    for (let i = 1; i < word.length; i++) if (this.s[idx + i] !== word.charCodeAt(i)) return false;
    return true;
  }

  // scan_once_unicode; a failed term is "Expecting value" at its start (the StopIteration path).
  scanOnce(idx: number): [unknown, number] {
    if (idx >= this.len) throw new DecodeError("Expecting value", idx);
    const c = this.s[idx];
    if (c === QUOTE) return this.scanString(idx + 1);
    if (c === 0x7b || c === 0x5b) {
      if (++this.depth > MAX_JSON_DEPTH) throw new TooDeep();
      const result = c === 0x7b ? this.parseObject(idx + 1) : this.parseArray(idx + 1);
      this.depth--;
      return result;
    }
    const constants: [string, unknown][] = [
      ["null", null],
      ["true", true],
      ["false", false],
      ["NaN", Number.NaN],
      ["Infinity", Infinity],
      ["-Infinity", -Infinity],
    ];
    for (const [word, value] of constants) {
      if (c === word.charCodeAt(0) && idx + word.length - 1 < this.len && this.matches(idx, word)) {
        return [value, idx + word.length];
      }
    }
    return this.matchNumber(idx);
  }

  matchNumber(start: number): [unknown, number] {
    const s = this.s;
    const end = this.len - 1;
    let idx = start;
    if (s[idx] === 0x2d) {
      idx++;
      if (idx > end) throw new DecodeError("Expecting value", start);
    }
    const first = s[idx] as number;
    if (first >= 0x31 && first <= 0x39) {
      idx++;
      while (idx <= end && isDigit(s[idx])) idx++;
    } else if (first === 0x30) {
      idx++;
    } else {
      throw new DecodeError("Expecting value", start);
    }
    let isFloat = false;
    if (idx < end && s[idx] === 0x2e && isDigit(s[idx + 1])) {
      isFloat = true;
      idx += 2;
      while (idx <= end && isDigit(s[idx])) idx++;
    }
    if (idx < end && (s[idx] === 0x65 || s[idx] === 0x45)) {
      const exponentStart = idx;
      idx++;
      if (idx < end && (s[idx] === 0x2d || s[idx] === 0x2b)) idx++;
      while (idx <= end && isDigit(s[idx])) idx++;
      if (isDigit(s[idx - 1])) isFloat = true;
      else idx = exponentStart;
    }
    const value = jsonNumber(fromCodePoints(s, start, idx), isFloat);
    if (value === undefined) throw new IntTooLong();
    return [value, idx];
  }

  // scanstring_unicode: `end` is the index after the opening quote.
  scanString(end: number): [string, number] {
    const s = this.s;
    const begin = end - 1;
    let out = "";
    for (;;) {
      let next = end;
      let c = 0;
      for (; next < this.len; next++) {
        c = s[next] as number;
        if (c === QUOTE || c === BACKSLASH) break;
        if (c <= 0x1f) throw new DecodeError("Invalid control character at", next);
      }
      if (next >= this.len) throw new DecodeError("Unterminated string starting at", begin);
      if (next !== end) out += fromCodePoints(s, end, next);
      next++;
      if (c === QUOTE) return [out, next];
      if (next === this.len) throw new DecodeError("Unterminated string starting at", begin);
      c = s[next] as number;
      if (c !== 0x75) {
        end = next + 1;
        const escaped = SIMPLE_ESCAPES[c];
        if (escaped === undefined) throw new DecodeError("Invalid \\escape", end - 2);
        out += String.fromCharCode(escaped);
        continue;
      }
      next++;
      end = next + 4;
      // 3.13 and 3.14 refuse a \u escape that reaches the last character (a later CPython relaxes it).
      if (end >= this.len) throw new DecodeError("Invalid \\uXXXX escape", next - 1);
      let unit = this.hex4(next, end);
      if (
        unit >= 0xd800 &&
        unit <= 0xdbff &&
        end + 6 < this.len &&
        s[end] === BACKSLASH &&
        s[end + 1] === 0x75
      ) {
        const low = this.hex4(end + 2, end + 6);
        if (low >= 0xdc00 && low <= 0xdfff) {
          unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
          end += 6;
        }
      }
      out += String.fromCodePoint(unit);
    }
  }

  hex4(from: number, end: number): number {
    let value = 0;
    for (let i = from; i < end; i++) {
      const digit = hexValue(this.s[i]);
      if (digit < 0) throw new DecodeError("Invalid \\uXXXX escape", end - 5);
      value = (value << 4) | digit;
    }
    return value;
  }

  // _parse_object_unicode; `idx` is the index after "{". A repeated key keeps its first place and takes
  // the last value, as in a dict.
  parseObject(idx: number): [unknown, number] {
    const result = new Map<string, unknown>();
    idx = this.skipWhitespace(idx);
    if (idx >= this.len || this.s[idx] !== 0x7d) {
      for (;;) {
        if (idx >= this.len || this.s[idx] !== QUOTE) {
          throw new DecodeError("Expecting property name enclosed in double quotes", idx);
        }
        const [key, afterKey] = this.scanString(idx + 1);
        idx = this.skipWhitespace(afterKey);
        if (idx >= this.len || this.s[idx] !== 0x3a) throw new DecodeError("Expecting ':' delimiter", idx);
        idx = this.skipWhitespace(idx + 1);
        const [value, afterValue] = this.scanOnce(idx);
        result.set(key, value);
        idx = this.skipWhitespace(afterValue);
        if (idx < this.len && this.s[idx] === 0x7d) break;
        if (idx >= this.len || this.s[idx] !== 0x2c) throw new DecodeError("Expecting ',' delimiter", idx);
        const comma = idx;
        idx = this.skipWhitespace(idx + 1);
        if (idx < this.len && this.s[idx] === 0x7d) {
          throw new DecodeError("Illegal trailing comma before end of object", comma);
        }
      }
    }
    return [result, idx + 1];
  }

  // _parse_array_unicode; `idx` is the index after "[".
  parseArray(idx: number): [unknown, number] {
    const result: unknown[] = [];
    idx = this.skipWhitespace(idx);
    if (idx >= this.len || this.s[idx] !== 0x5d) {
      for (;;) {
        const [value, afterValue] = this.scanOnce(idx);
        result.push(value);
        idx = this.skipWhitespace(afterValue);
        if (idx < this.len && this.s[idx] === 0x5d) break;
        if (idx >= this.len || this.s[idx] !== 0x2c) throw new DecodeError("Expecting ',' delimiter", idx);
        const comma = idx;
        idx = this.skipWhitespace(idx + 1);
        if (idx < this.len && this.s[idx] === 0x5d) {
          throw new DecodeError("Illegal trailing comma before end of array", comma);
        }
      }
    }
    return [result, idx + 1];
  }

  // JSONDecoder.decode: whitespace, one value, whitespace, end.
  decode(): unknown {
    const [value, end] = this.scanOnce(this.skipWhitespace(0));
    const after = this.skipWhitespace(end);
    if (after !== this.len) throw new DecodeError("Extra data", after);
    return value;
  }
}

/** Python's json.loads on a text, from the slow, exact scanner: its verdict, or its value (see py-value.ts). */
export function scanPythonJson(text: string): PythonJsonResult {
  try {
    return { ok: true, value: new Scanner(text).decode() };
  } catch (error) {
    if (error instanceof DecodeError) return { ok: false, reason: "invalid", msg: error.msg, pos: error.pos };
    if (error instanceof TooDeep) return { ok: false, reason: "too_deep" };
    if (error instanceof IntTooLong) return { ok: false, reason: "int_too_long" };
    throw error;
  }
}

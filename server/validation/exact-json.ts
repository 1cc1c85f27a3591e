// Reads a text JSON.parse has accepted into the exact values of py-value.ts (ordered dicts, exact ints,
// whole floats). The scanner port gives the same values, but walks code points to report Python's
// positions and costs about ten times as much (a 12 kB body: 1 ms against 0.1 ms): this reader needs no
// positions and no error paths, so strings are slices, or JSON.parse of the slice when they hold escapes.

import { jsonNumber } from "./py-value.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

class Reader {
  readonly text: string;
  i = 0;
  // Where the next backslash is, found once and reused, so many short strings cost one search in all.
  nextEscape = -1;

  constructor(text: string) {
    this.text = text;
  }

  skipWhitespace(): number {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
      this.i++;
    }
  }

  value(): unknown {
    const c = this.skipWhitespace();
    if (c === QUOTE) return this.string();
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x74) return this.word(4, true);
    if (c === 0x66) return this.word(5, false);
    if (c === 0x6e) return this.word(4, null);
    return this.number();
  }

  word(length: number, value: unknown): unknown {
    this.i += length;
    return value;
  }

  string(): string {
    const text = this.text;
    const open = this.i;
    const close = text.indexOf('"', open + 1);
    if (this.nextEscape !== -2 && this.nextEscape < open) {
      const found = text.indexOf("\\", open + 1);
      this.nextEscape = found === -1 ? -2 : found;
    }
    if (this.nextEscape === -2 || this.nextEscape > close) {
      this.i = close + 1;
      return text.slice(open + 1, close);
    }
    let j = this.nextEscape;
    for (;;) {
      const c = text.charCodeAt(j);
      if (c === BACKSLASH) j += 2;
      else if (c === QUOTE) break;
      else j++;
    }
    this.i = j + 1;
    return JSON.parse(text.slice(open, j + 1)) as string;
  }

  number(): unknown {
    const text = this.text;
    const start = this.i;
    let isFloat = false;
    for (;;) {
      const c = text.charCodeAt(this.i);
      if (c === 0x2e || c === 0x65 || c === 0x45) isFloat = true;
      else if (!((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b)) break;
      this.i++;
    }
    return jsonNumber(text.slice(start, this.i), isFloat);
  }

  object(): Map<string, unknown> {
    const result = new Map<string, unknown>();
    this.i++;
    if (this.skipWhitespace() === 0x7d) {
      this.i++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      const key = this.string();
      this.skipWhitespace();
      this.i++; // ":"
      result.set(key, this.value());
      if (this.skipWhitespace() === 0x7d) {
        this.i++;
        return result;
      }
      this.i++; // ","
    }
  }

  array(): unknown[] {
    const result: unknown[] = [];
    this.i++;
    if (this.skipWhitespace() === 0x5d) {
      this.i++;
      return result;
    }
    for (;;) {
      result.push(this.value());
      if (this.skipWhitespace() === 0x5d) {
        this.i++;
        return result;
      }
      this.i++; // ","
    }
  }
}

/**
 * The exact value of a JSON text that JSON.parse accepted and whose integers all have at most 4300
 * digits (python-json.ts sends any other to the scanner); anything else is a bug of the caller.
 */
export function readExactJson(text: string): unknown {
  return new Reader(text).value();
}

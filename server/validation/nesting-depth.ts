/**
 * Whether JSON text nests arrays and objects deeper than `max`, found in one pass over the text
 * before it is parsed: a body nested 40,000 deep parses, but every later walk of it (JSON.stringify,
 * a schema check) recurses and throws a RangeError. Brackets inside strings do not count. Malformed
 * text is left for the parser to refuse.
 * @example nestingDepthExceeds('{"a":[[1]]}', 2) // true
 */
export function nestingDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

// The folded text of `normalizeForMatch` alone, without its offset tables: phrase matching needs only the
// text, and offsets only for the few matches a check reports. ASCII stretches fold in native code.

import { isAscii } from "./ascii.ts";
import { ASCII_SPACE, fold, IGNORED, infoOf, SPACING, widthOf } from "./code-point-info.ts";
import { normalizeForMatch } from "./normalize.ts";

// Space and \t..\r are the ASCII whitespace `normalizeForMatch` collapses: a run of two or more, or
// one that is not a plain space, becomes one space.
const ASCII_SPACES = /[\t-\r ]{2,}|[\t-\r]/g;
const NON_ASCII_RUN = /[\u0080-\uffff]+/g;
const CONTROL_SPACES = ["\n", "\r", "\t", "\v", "\f"];
// Measured in V8: three times as fast as includes("  ") or /  /, which stop at every single space.
const DOUBLE_SPACE = / {2}/;

function foldAscii(text: string): string {
  const lower = text.toLowerCase();
  // Most of the cost of the replacement is its search: ask first, natively, whether it has work.
  const collapses = CONTROL_SPACES.some((space) => lower.includes(space)) || DOUBLE_SPACE.test(lower);
  return collapses ? lower.replace(ASCII_SPACES, " ") : lower;
}

/**
 * The folding of one stretch of non-ASCII code points, whitespace as " ", or undefined when a code
 * point folds to text with whitespace in it ("¨" is " ̈" in NFKC), which must not merge with its
 * neighbours. Starts one unit early when an ASCII character takes combining marks from the run.
 */
function foldRun(original: string, start: number, end: number): string | undefined {
  let folded = "";
  let k = start;
  while (k < end) {
    const codePoint = original.codePointAt(k) ?? 0;
    const info = infoOf(codePoint);
    let j = k + widthOf(codePoint);
    if (info.kind === SPACING) {
      folded += " ";
    } else if (info.kind !== IGNORED) {
      // Combining marks fold together with their base, as in `normalizeForMatch`.
      while (j < original.length && original.charCodeAt(j) >= 0x300) {
        const following = original.codePointAt(j) ?? 0;
        if (!infoOf(following).mark) break;
        j += widthOf(following);
      }
      if (j === k + widthOf(codePoint)) {
        if (info.spaced) return undefined;
        folded += info.folded;
      } else {
        const segment = fold(original.slice(k, j));
        if (ASCII_SPACE.test(segment)) return undefined;
        folded += segment;
      }
    }
    k = j;
  }
  return folded;
}

/**
 * Equal to `normalizeForMatch(original).text`: NFKC, lower case, default-ignorable characters removed,
 * whitespace runs collapsed to one space. ASCII stretches are lowered as they are and non-ASCII ones
 * code point by code point; one collapse of the whitespace then finishes both.
 */
export function foldText(original: string): string {
  if (isAscii(original)) return foldAscii(original);
  const parts: string[] = [];
  let done = 0;
  NON_ASCII_RUN.lastIndex = 0;
  for (let run = NON_ASCII_RUN.exec(original); run; run = NON_ASCII_RUN.exec(original)) {
    // An ASCII character followed by a possible combining mark folds together with the mark.
    const start = run.index > done && original.charCodeAt(run.index) >= 0x300 ? run.index - 1 : run.index;
    const folded = foldRun(original, start, run.index + run[0].length);
    // Rare enough to leave to the reference implementation.
    if (folded === undefined) return normalizeForMatch(original).text;
    parts.push(original.slice(done, start).toLowerCase(), folded);
    done = run.index + run[0].length;
  }
  parts.push(original.slice(done).toLowerCase());
  return parts.join("").replace(ASCII_SPACES, " ");
}

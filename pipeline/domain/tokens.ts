// Splits text into normalised word tokens with their offsets and sentences, for the rubric matcher.
// Each token also carries a hash of its normal form, so the matcher can look words up without slicing
// a string per word: on a 1,500-character abstract that allocation was half the scoring time.

/** A tokenized text. Token i reads `lower` from `starts[i]`, unless `folded` has its normal form. */
export interface Tokens {
  lower: string;
  anyFolded: boolean;
  starts: number[];
  ends: number[];
  hashes: number[];
  sentence: number[];
  folded: Array<string | undefined>;
  sentenceStarts: number[];
  sentenceEnds: number[];
}

// Tokens before a period that do not end a sentence; single letters (initials, "e.g.") are also kept.
const ABBREVIATIONS = new Set(["al", "vs", "cf", "fig", "figs", "eq", "eqs", "approx", "resp", "no", "dr"]);
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const LOWER_CHAR = /\p{Ll}/u;
const NON_ASCII = /\P{ASCII}/u;
const MARKS = /\p{M}+/gu;

/** The lookup form of one word: compatibility-decomposed, accents removed, lower case. */
export function normalizeToken(word: string): string {
  if (!NON_ASCII.test(word)) return word.toLowerCase();
  return word.normalize("NFKD").replace(MARKS, "").toLowerCase();
}

/** A 32-bit hash of `text[from..to)`, the same for a token and for a rubric word. */
export function hashOf(text: string, from: number, to: number): number {
  let hash = 0;
  for (let i = from; i < to; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash;
}

const OTHER = 0;
const WORD = 1;
const SYMBOL = 2;
const TERMINAL = 3;
const ASCII_KIND = new Uint8Array(128).map((_, code) => {
  if ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return WORD;
  if (code === 60 || code === 61 || code === 62) return SYMBOL;
  if (code === 33 || code === 46 || code === 63) return TERMINAL;
  return OTHER;
});

function unicodeKind(code: number): number {
  if (code === 0xb1 || code === 0x2264 || code === 0x2265) return SYMBOL;
  // Surrogate halves keep astral letters (mathematical alphabets) inside one token; NFKD folds them.
  if (code >= 0xd800 && code <= 0xdfff) return WORD;
  return WORD_CHAR.test(String.fromCharCode(code)) ? WORD : OTHER;
}

function isLowerCode(code: number): boolean {
  if (code < 128) return code >= 97 && code <= 122;
  return LOWER_CHAR.test(String.fromCharCode(code));
}

function isSpaceCode(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0;
}

/** Splits a text into normalised tokens with their offsets and the sentence each belongs to. */
export function tokenize(text: string): Tokens {
  const lowered = text.toLowerCase();
  // Offsets into `lower` must match `text`; the rare characters whose lower case is longer are folded per token.
  const lower = lowered.length === text.length ? lowered : text;
  const foldAll = lower !== lowered;
  const starts: number[] = [];
  const ends: number[] = [];
  const hashes: number[] = [];
  const sentences: number[] = [];
  const out: Tokens = {
    lower,
    anyFolded: false,
    starts,
    ends,
    hashes,
    sentence: sentences,
    folded: [],
    sentenceStarts: [],
    sentenceEnds: [],
  };
  const n = text.length;
  let sentence = 0;
  let sentenceStart = -1;
  let i = 0;
  while (i < n) {
    const code = lower.charCodeAt(i);
    const kind = code < 128 ? (ASCII_KIND[code] as number) : unicodeKind(code);
    if (kind === WORD) {
      let j = i + 1;
      let hash = code;
      let ascii = code < 128 && !foldAll;
      while (j < n) {
        const c = lower.charCodeAt(j);
        if (c < 128) {
          if (ASCII_KIND[c] !== WORD) break;
        } else if (unicodeKind(c) === WORD) {
          ascii = false;
        } else {
          break;
        }
        hash = (Math.imul(hash, 31) + c) | 0;
        j++;
      }
      if (sentenceStart < 0) sentenceStart = i;
      starts.push(i);
      ends.push(j);
      sentences.push(sentence);
      if (ascii) {
        hashes.push(hash);
      } else {
        const folded = normalizeToken(text.slice(i, j));
        hashes.push(hashOf(folded, 0, folded.length));
        out.folded[starts.length - 1] = folded;
        out.anyFolded = true;
      }
      i = j;
      continue;
    }
    if (kind === SYMBOL) {
      if (sentenceStart < 0) sentenceStart = i;
      starts.push(i);
      ends.push(i + 1);
      sentences.push(sentence);
      hashes.push(code);
    } else if (kind === TERMINAL && sentenceStart >= 0 && endsSentence(text, i, out)) {
      out.sentenceStarts.push(sentenceStart);
      out.sentenceEnds.push(i + 1);
      sentence++;
      sentenceStart = -1;
    }
    i++;
  }
  if (sentenceStart >= 0) {
    let end = n;
    while (end > sentenceStart && isSpaceCode(text.charCodeAt(end - 1))) end--;
    out.sentenceStarts.push(sentenceStart);
    out.sentenceEnds.push(end);
  }
  return out;
}

function endsSentence(text: string, at: number, tokens: Tokens): boolean {
  const next = at + 1;
  if (next < text.length && !isSpaceCode(text.charCodeAt(next))) return false;
  const last = tokens.starts.length - 1;
  if (last >= 0 && tokens.ends[last] === at) {
    const previous = tokenText(tokens, last);
    if (previous.length === 1 || ABBREVIATIONS.has(previous)) return false;
  }
  let k = next;
  while (k < text.length && isSpaceCode(text.charCodeAt(k))) k++;
  return k >= text.length || !isLowerCode(text.charCodeAt(k));
}

/** The normalised text of token `i` (allocates; the matcher itself compares in place). */
export function tokenText(tokens: Tokens, i: number): string {
  return (
    (tokens.anyFolded ? tokens.folded[i] : undefined) ?? tokens.lower.slice(tokens.starts[i], tokens.ends[i])
  );
}

/** The normalised words of a text, e.g. `tokenWords("Tool-Use, é!")` is `["tool", "use", "e"]`. */
export function tokenWords(text: string): string[] {
  const tokens = tokenize(text);
  return tokens.starts.map((_, i) => tokenText(tokens, i));
}

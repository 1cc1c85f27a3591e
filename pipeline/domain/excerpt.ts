// Evidence quotes: the sentence a signal fired on, trimmed to a readable length around the match.

import { FIELDS, type Hit } from "./text-signals.ts";

/** The sentence around a hit, whitespace collapsed, cut to about `max` characters around the match. */
export function excerpt(hit: Hit, max: number): string {
  const { text, sentenceStart, sentenceEnd, start, end } = hit;
  let from = sentenceStart;
  let to = sentenceEnd;
  if (to - from > max) {
    const lead = Math.max(0, Math.floor((max - (end - start)) / 3));
    from = Math.max(sentenceStart, start - lead);
    to = Math.min(sentenceEnd, from + max);
    from = Math.max(sentenceStart, Math.min(from, to - max));
    if (from > sentenceStart) {
      const space = text.indexOf(" ", from);
      if (space >= 0 && space < start) from = space + 1;
    }
    if (to < sentenceEnd) {
      const space = text.lastIndexOf(" ", to);
      if (space > end) to = space;
    }
  }
  let body = text.slice(from, to);
  // Plain `includes` checks: a regex test on every excerpt showed up in profiles.
  if (body.includes("\n") || body.includes("  ") || body.includes("\t") || body.includes("\r")) {
    body = body.replace(/\s+/g, " ").trim();
  }
  return `${from > sentenceStart ? "…" : ""}${body}${to < sentenceEnd ? "…" : ""}`;
}

/** `excerpt` for the hits of one candidate, computed once per short sentence however many signals share it. */
export function createExcerpter(max: number): (hit: Hit) => string {
  const bySentence = new Map<number, string>();
  return (hit) => {
    if (hit.sentenceEnd - hit.sentenceStart > max) return excerpt(hit, max);
    const key = FIELDS.indexOf(hit.field) * 0x40000000 + hit.sentenceStart;
    let text = bySentence.get(key);
    if (text === undefined) {
      text = excerpt(hit, max);
      bySentence.set(key, text);
    }
    return text;
  };
}

// Evidence offsets from POST /v1/verify count code points (metadata.offset_unit "code_point"), while
// JavaScript strings index UTF-16 units: "👋" is one code point and two units. Every slice here goes
// through Array.from(text), which splits by code point, so an emoji before a placeholder does not shift
// the mark.

const clamp = (value, max) => Math.min(Math.max(0, Math.trunc(Number(value) || 0)), max);

/**
 * Splits `text` into runs, marked where any span covers it. Spans are `{start, end}` in code points,
 * end exclusive; overlapping spans merge; out-of-range offsets are clamped.
 * Example: segments("Hi 👋 {{x}}", [{start: 5, end: 10}]) -> ["Hi 👋 " unmarked, "{{x}}" marked].
 */
export function segments(text, spans) {
  const points = Array.from(text);
  const covered = new Array(points.length).fill(false);
  for (const span of spans) {
    const end = clamp(span.end, points.length);
    for (let i = clamp(span.start, points.length); i < end; i++) covered[i] = true;
  }
  const runs = [];
  for (let i = 0; i < points.length; i++) {
    const last = runs.at(-1);
    if (last && last.marked === covered[i]) last.text += points[i];
    else runs.push({ text: points[i], marked: covered[i] });
  }
  return runs;
}

/**
 * The span with up to `context` code points either side, within its own line(s), for showing one
 * piece of evidence: `{before, match, after, cutBefore, cutAfter}`.
 */
export function excerpt(text, span, context = 48) {
  const points = Array.from(text);
  const start = clamp(span.start, points.length);
  const end = Math.max(start, clamp(span.end, points.length));
  let from = Math.max(0, start - context);
  let to = Math.min(points.length, end + context);
  const lineStart = points.lastIndexOf("\n", start - 1) + 1;
  const lineEnd = points.indexOf("\n", end);
  from = Math.max(from, lineStart);
  if (lineEnd !== -1) to = Math.min(to, lineEnd);
  return {
    before: points.slice(from, start).join(""),
    match: points.slice(start, end).join(""),
    after: points.slice(end, to).join(""),
    cutBefore: from > lineStart,
    cutAfter: to < (lineEnd === -1 ? points.length : lineEnd),
  };
}

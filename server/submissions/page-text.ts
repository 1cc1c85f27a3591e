// The readable text of a fetched page: its character set, HTML through a real parser, and a
// judgement of whether what came out is text at all.
import { Parser } from "htmlparser2";

/** Bytes as text in the declared character set; UTF-8 when none is declared or it is unknown. */
export function decodeBody(bytes: Uint8Array, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

// Their text is code or markup, never prose about the page.
const SKIPPED = new Set(["script", "style", "noscript", "template", "svg", "math", "iframe", "object"]);
const BLOCKS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "br",
  "dd",
  "div",
  "dl",
  "dt",
  "figcaption",
  "footer",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "td",
  "th",
  "title",
  "tr",
  "ul",
]);
const DESCRIPTIONS = new Set(["description", "og:description", "twitter:description"]);

// Inline styles that keep an element from being seen.
const INVISIBLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0*)?(?:px|em|rem|pt|%)?\s*(?:!important)?\s*(?:;|$)|opacity\s*:\s*0(?:\.0*)?\s*(?:!important)?\s*(?:;|$))/i;

/**
 * Whether an element's text is hidden from a reader of the page. Text no visitor sees is a place to
 * hide keywords and instructions to the scorer, so it is left out as script is.
 */
function isHidden(attributes: Record<string, string>): boolean {
  if (attributes.hidden !== undefined) return true;
  if (attributes["aria-hidden"]?.trim().toLowerCase() === "true") return true;
  return INVISIBLE.test(attributes.style ?? "");
}

/**
 * The text of an HTML document: the title, meta descriptions and body text, with script, style and
 * hidden elements left out and a line break at every block, so sentences of different blocks do not
 * run together.
 */
export function htmlText(html: string): string {
  const parts: string[] = [];
  // One entry per open element: whether it starts text that is not read (htmlparser2 closes every
  // element it opens, void and unclosed ones included, so the stack stays in step).
  const skips: boolean[] = [];
  let skipping = 0;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const skip = SKIPPED.has(name) || isHidden(attributes);
        skips.push(skip);
        if (skip) skipping++;
        else if (BLOCKS.has(name)) parts.push("\n");
        const meta = (attributes.name ?? attributes.property ?? "").toLowerCase();
        if (skipping === 0 && name === "meta" && DESCRIPTIONS.has(meta) && attributes.content)
          parts.push(`\n${attributes.content}\n`);
      },
      onclosetag(name) {
        if (skips.pop()) skipping = Math.max(0, skipping - 1);
        else if (BLOCKS.has(name)) parts.push("\n");
      },
      ontext(text) {
        if (skipping === 0) parts.push(text);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return tidy(parts.join(""));
}

/** Collapses runs of spaces within lines and of blank lines. */
export function tidy(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

export type Readability = { ok: true } | { ok: false; why: string };

const MIN_LETTERS = 40;
const MAX_JUNK_SHARE = 0.02;

/**
 * Whether extracted text is worth scoring: binary bytes decode to NULs, control characters and
 * U+FFFD; a page of only markup or a script-rendered shell has next to no letters.
 */
export function judgeReadability(text: string): Readability {
  let junk = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0xfffd || code === 0x7f || (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d))
      junk++;
  }
  if (text.length > 0 && junk / text.length > MAX_JUNK_SHARE) {
    return { ok: false, why: "its bytes are not readable text in the declared character set" };
  }
  if (text.replace(/\P{L}/gu, "").length < MIN_LETTERS) {
    return { ok: false, why: "it has no readable text (a page built by scripts?)" };
  }
  return { ok: true };
}

import type { MessageField } from "../../../pipeline/domain/verify-request.ts";
import { type Check, createFindings } from "./check-types.ts";

const ID = "placeholders";
const NAME = "Unfilled template placeholders";
const FIELDS: readonly MessageField[] = ["subject", "body", "recipient"];

// Every repetition is bounded and the repeated class excludes the closing delimiter, so each attempt
// stops at the next delimiter: linear in the text.
const DOUBLE_BRACE = /\{\{[^{}\r\n]{1,80}\}\}|\{%[^{}%\r\n]{1,80}%\}/g;
const SINGLE_BRACE = /\{([A-Za-z][A-Za-z0-9_ .-]{1,40})\}/g;
const SQUARE = /\[([^[\]\r\n]{1,80})\](?!\()/g;
const PERCENT = /%([A-Za-z][A-Za-z0-9_]{1,40})%/g;
const ANGLE = /<([A-Za-z][A-Za-z0-9_ ]{1,40})>/g;
const MERGE_TAG = /\*\|[A-Za-z0-9_:]{1,40}\|\*/g;
const PAREN_INSTRUCTION = /\((?:insert|enter|add) [^()\r\n]{1,80}\)/gi;

const VOCABULARY = new Set(
  [
    "name first name firstname fname first last name lastname lname last surname full name",
    "company company name organization organisation org business employer",
    "title job title position role department team manager industry",
    "date time day deadline meeting time event topic amount price number",
    "city country location address phone phone number mobile email email address",
    "product product name link url website signature contact recipient sender placeholder",
  ].flatMap((line) => line.split(" ")),
);
const TWO_WORDS = new Set([
  "first name",
  "last name",
  "full name",
  "company name",
  "job title",
  "meeting time",
  "phone number",
  "email address",
  "product name",
]);
const OWNER_PREFIX =
  /^(?:your|my|their|his|her|recipient|recipients|client|customer|contact|prospect|sender) /;
const INSTRUCTION_PREFIX = /^(?:insert|enter|add|fill in|replace with|placeholder)\b/;

const HTML_TAGS = new Set(
  (
    "a abbr b big blockquote body br caption center code col dd del div dl dt em font footer form h1 h2 h3 " +
    "h4 h5 h6 head header hr html i img input label li link main meta nav ol option p pre s script section " +
    "select small span strong style sub sup table tbody td th thead title tr tt u ul"
  ).split(" "),
);

function isVocabulary(content: string): boolean {
  let words = content.toLowerCase().replace(/[_.-]/g, " ").replace(/ {2,}/g, " ").trim();
  words = words.replace(OWNER_PREFIX, "");
  return VOCABULARY.has(words) || TWO_WORDS.has(words) || INSTRUCTION_PREFIX.test(words);
}

function isScreamingSnake(content: string): boolean {
  return /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(content);
}

type Classifier = (content: string) => boolean;

/** A pattern, the literal every match starts with, and the test its content must pass. */
type Pattern = readonly [RegExp, string, Classifier];

// The opening literal lets the search start at its first occurrence, and skip a text without it, in
// native code: most messages hold none of these characters.
const PATTERNS: readonly Pattern[] = [
  [DOUBLE_BRACE, "{", () => true],
  [MERGE_TAG, "*|", () => true],
  [PAREN_INSTRUCTION, "(", () => true],
  [SINGLE_BRACE, "{", (content) => !content.includes(" ") || isVocabulary(content)],
  [SQUARE, "[", (content) => isVocabulary(content.trim()) || isScreamingSnake(content.trim())],
  [PERCENT, "%", (content) => content === content.toUpperCase() || isVocabulary(content)],
  [
    ANGLE,
    "<",
    (content) =>
      isScreamingSnake(content) ||
      (/^[A-Z0-9]+$/.test(content) && !HTML_TAGS.has(content.toLowerCase())) ||
      isVocabulary(content),
  ],
];

interface Hit {
  start: number;
  end: number;
}

function findPlaceholders(text: string): Hit[] {
  const hits: Hit[] = [];
  for (const [pattern, opening, accepts] of PATTERNS) {
    const first = text.indexOf(opening);
    if (first < 0) continue;
    pattern.lastIndex = first;
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      if (accepts(match[1] ?? match[0]))
        hits.push({ start: match.index, end: match.index + match[0].length });
    }
  }
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  // `{first_name}` inside `{{first_name}}` is the same placeholder.
  const kept: Hit[] = [];
  for (const hit of hits) {
    const last = kept[kept.length - 1];
    if (!last || hit.start >= last.end) kept.push(hit);
  }
  return kept;
}

/** Fails on template placeholders left unfilled: {{first_name}}, {Company}, [Name], %FIRSTNAME%... */
export const checkPlaceholders: Check = (_message, { views }) => {
  const findings = createFindings();
  for (const field of FIELDS) {
    const text = views.text(field);
    for (const hit of findPlaceholders(text)) {
      const shown = text.slice(hit.start, hit.end);
      findings.add("fail", "high", `unfilled placeholder '${shown}' in ${field}`, () =>
        views.span(field, hit.start, hit.end),
      );
    }
  }
  return findings.result(
    ID,
    NAME,
    "No unfilled template placeholders.",
    "Fill in every placeholder with the real value, or remove it, before sending.",
  );
};

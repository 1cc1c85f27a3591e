import type { MessageField } from "../../../pipeline/domain/verify-request.ts";
import { ARTIFACTS } from "./ai-artifact-phrases.ts";
import { isAscii } from "./ascii.ts";
import { type Check, createFindings, type Findings, quoteText } from "./check-types.ts";
import { isWholeWord } from "./normalize.ts";
import type { TextViews } from "./text-views.ts";

const ID = "ai_artifacts";
const NAME = "AI artifacts";
const FIELDS: readonly MessageField[] = ["subject", "body"];

// `<|im_start|>`, `<|eot_id|>` and every other special token of that shape.
const SPECIAL_TOKEN = /<\|[A-Za-z0-9_]{1,40}\|>/g;
const SUBJECT_LINE = /^[ \t]{0,10}subject[ \t]{0,3}:/gim;
const SUBJECT_HINT = /subject/i;
const HEADER_LINE = /^[ \t]{0,10}(?:from|sent|to|cc|date)[ \t]{0,3}:/i;

function scanPhrases(field: MessageField, views: TextViews, findings: Findings): void {
  const text = views.folded(field);
  for (const { phrase, start, end } of views.knownPhrases(field).aiArtifacts) {
    const artifact = ARTIFACTS[phrase];
    if (!artifact || !isWholeWord(text, start, end)) continue;
    findings.add(
      "fail",
      artifact.severity,
      `${artifact.what} in ${field}: ${quoteText(artifact.phrase)}`,
      () => views.foldedSpan(field, start, end),
    );
  }
}

function scanSpecialTokens(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  const first = text.indexOf("<|");
  if (first < 0) return;
  SPECIAL_TOKEN.lastIndex = first;
  for (let match = SPECIAL_TOKEN.exec(text); match; match = SPECIAL_TOKEN.exec(text)) {
    const start = match.index;
    const token = match[0];
    findings.add("fail", "high", `a chat-template token in ${field}: ${quoteText(token)}`, () =>
      views.span(field, start, start + token.length),
    );
  }
}

/** The line before `lineStart` that has text in it, or "" at the top. */
function previousLine(text: string, lineStart: number): string {
  let end = lineStart - 1;
  while (end > 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    const line = text.slice(start, end);
    if (line.trim().length > 0) return line;
    end = start - 1;
  }
  return "";
}

/** A "Subject:" line in the body is a draft pasted whole; under From:/Sent: it is a quoted mail. */
function scanSubjectLines(text: string, views: TextViews, findings: Findings): void {
  // The anchored pattern tries every line: ask first whether the body holds the word in any case. In
  // ASCII the folded view is the lower case, where the phrase search has looked for it already;
  // otherwise a case-blind search skips ahead natively.
  const mayHold = isAscii(text) ? views.knownPhrases("body").subjectWord.length > 0 : SUBJECT_HINT.test(text);
  if (!mayHold) return;
  SUBJECT_LINE.lastIndex = 0;
  for (let match = SUBJECT_LINE.exec(text); match; match = SUBJECT_LINE.exec(text)) {
    const start = match.index;
    const lineEnd = text.indexOf("\n", start);
    const end = lineEnd < 0 ? text.length : lineEnd;
    const above = previousLine(text, start);
    const span = () => views.span("body", start, end);
    if (above === "") {
      findings.add("fail", "high", "the body starts with a 'Subject:' line", span);
    } else if (!HEADER_LINE.test(above)) {
      findings.add("fail", "medium", "a 'Subject:' line inside the body", span);
    }
    SUBJECT_LINE.lastIndex = end;
  }
}

/**
 * Traces of the model that wrote the message: self-references, chat preambles, template tokens,
 * prompt-injection phrases and "Subject:" lines pasted into the body.
 */
export const checkAiArtifacts: Check = (message, { views }) => {
  const findings = createFindings();
  for (const field of FIELDS) {
    scanPhrases(field, views, findings);
    scanSpecialTokens(views.text(field), field, views, findings);
  }
  scanSubjectLines(message.body, views, findings);
  const prefix = /^[ \t]{0,10}subject[ \t]{0,3}:/i.exec(message.subject);
  if (prefix) {
    findings.add("fail", "high", "the subject itself starts with 'Subject:'", () =>
      views.span("subject", 0, prefix[0].length),
    );
  }
  return findings.result(
    ID,
    NAME,
    "No traces of the drafting model.",
    "Send only the message itself: remove the model's remarks, template tokens and pasted headers.",
  );
};

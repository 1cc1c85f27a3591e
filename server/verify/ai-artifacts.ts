import type { MessageField, Severity } from "../../pipeline/domain/verify-request.ts";
import { type Check, createFindings, type Findings, quoteText } from "./check-types.ts";
import { foldForMatch, isWholeWord, isWordEnd } from "./normalize.ts";
import { createPhraseMatcher } from "./phrase-matcher.ts";
import type { TextViews } from "./text-views.ts";

const ID = "ai_artifacts";
const NAME = "AI artifacts";
const FIELDS: readonly MessageField[] = ["subject", "body"];

interface Artifact {
  phrase: string;
  severity: Severity;
  what: string;
}

const SELF_REFERENCE = [
  "as an ai language model",
  "as a language model",
  "as an ai model",
  "as an ai assistant",
  "as an ai,",
  "i'm an ai language model",
  "i am an ai language model",
  "i'm just an ai",
  "i am just an ai",
  "i'm only an ai",
  "my knowledge cutoff",
  "as of my last knowledge update",
  "as of my last update",
  "i don't have access to real-time",
  "i cannot browse the internet",
  "i can't browse the internet",
];

const PREAMBLES = [
  "here is the email:",
  "here's the email:",
  "here is an email",
  "here's an email",
  "here is a draft",
  "here's a draft",
  "here is your email",
  "here's your email",
  "here is the revised",
  "here's the revised",
  "here is a revised",
  "here's a revised",
  "here is a polished",
  "here's a polished",
  ...["certainly", "sure", "absolutely", "of course"].flatMap((opener) =>
    ["! here's", "! here is", ", here's", ", here is"].map((rest) => `${opener}${rest}`),
  ),
];

const COACHING = [
  "feel free to customize",
  "feel free to customise",
  "feel free to personalize",
  "feel free to personalise",
  "feel free to tweak",
  "let me know if you'd like me to",
  "let me know if you want me to",
];

const CHAT_TOKENS = [
  "[inst]",
  "[/inst]",
  "<<sys>>",
  "<</sys>>",
  "<start_of_turn>",
  "<end_of_turn>",
  "### instruction:",
  "### response:",
];

const INJECTIONS = ["ignore", "disregard", "forget"].flatMap((verb) =>
  ["", "all ", "any ", "the ", "all the "].flatMap((quantity) =>
    ["previous", "prior", "above", "earlier", "preceding"].flatMap((which) =>
      ["instructions", "prompts", "directions", "rules"].map((what) => `${verb} ${quantity}${which} ${what}`),
    ),
  ),
);

const ARTIFACTS: readonly Artifact[] = [
  ...SELF_REFERENCE.map((phrase) => ({
    phrase,
    severity: "high" as const,
    what: "the model talking about itself",
  })),
  ...PREAMBLES.map((phrase) => ({ phrase, severity: "high" as const, what: "a chat preamble" })),
  ...COACHING.map((phrase) => ({
    phrase,
    severity: "medium" as const,
    what: "advice meant for the agent's user",
  })),
  ...CHAT_TOKENS.map((phrase) => ({ phrase, severity: "high" as const, what: "a chat-template token" })),
  ...INJECTIONS.map((phrase) => ({ phrase, severity: "high" as const, what: "a prompt-injection phrase" })),
];
const MATCHER = createPhraseMatcher(ARTIFACTS.map((artifact) => foldForMatch(artifact.phrase)));

// `<|im_start|>`, `<|eot_id|>` and every other special token of that shape.
const SPECIAL_TOKEN = /<\|[A-Za-z0-9_]{1,40}\|>/g;
const SUBJECT_LINE = /^[ \t]{0,10}subject[ \t]{0,3}:/gim;
const HEADER_LINE = /^[ \t]{0,10}(?:from|sent|to|cc|date)[ \t]{0,3}:/i;

function scanPhrases(field: MessageField, views: TextViews, findings: Findings): void {
  const view = views.normalized(field);
  MATCHER.scan(
    view.text,
    (index, start, end) => {
      const artifact = ARTIFACTS[index];
      if (!artifact || !isWholeWord(view.text, start, end)) return;
      findings.add(
        "fail",
        artifact.severity,
        `${artifact.what} in ${field}: ${quoteText(artifact.phrase)}`,
        () => views.normalizedSpan(field, start, end),
      );
    },
    (end) => isWordEnd(view.text, end),
  );
}

function scanSpecialTokens(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  SPECIAL_TOKEN.lastIndex = 0;
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

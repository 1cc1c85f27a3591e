import type { MessageField } from "../../pipeline/domain/verify-request.ts";
import { type Check, createFindings, skipped } from "./check-types.ts";
import { foldForMatch, isWholeWord, isWordEnd } from "./normalize.ts";
import { createPhraseMatcher } from "./phrase-matcher.ts";

const FIELDS: readonly MessageField[] = ["subject", "body"];

// Below these letter counts a share of capitals says nothing ("RE: NDA", a signature with initials).
const MIN_LETTERS: Record<MessageField, number> = {
  subject: 8,
  body: 40,
  recipient: Infinity,
  campaign: Infinity,
};
const MAX_CAPITAL_SHARE: Record<MessageField, number> = {
  subject: 0.7,
  body: 0.5,
  recipient: 1,
  campaign: 1,
};
const MARK_RUN = /[!?]{3,50}/g;

const NOT_CASED = /[^\p{Lu}\p{Ll}\p{Lt}]+/gu;
const NOT_CAPITAL = /[^\p{Lu}\p{Lt}]+/gu;

function capitalShare(text: string): { letters: number; share: number } {
  const letters = text.replace(NOT_CASED, "").length;
  const capitals = text.replace(NOT_CAPITAL, "").length;
  return { letters, share: letters === 0 ? 0 : capitals / letters };
}

/** Shouting: a high share of capital letters, runs of "!!!" or "?!?". */
export const checkShouting: Check = (_message, { views }) => {
  const findings = createFindings();
  for (const field of FIELDS) {
    const text = views.text(field);
    const { letters, share } = capitalShare(text);
    if (letters >= MIN_LETTERS[field] && share > MAX_CAPITAL_SHARE[field]) {
      findings.add(
        "warn",
        "medium",
        `${Math.round(share * 100)}% of the letters in ${field} are capitals`,
        () => views.span(field, 0, text.length),
      );
    }
    MARK_RUN.lastIndex = 0;
    for (let match = MARK_RUN.exec(text); match; match = MARK_RUN.exec(text)) {
      const start = match.index;
      const end = start + match[0].length;
      findings.add("warn", "low", `a run of '${match[0].slice(0, 5)}' in ${field}`, () =>
        views.span(field, start, end),
      );
    }
  }
  return findings.result(
    "shouting",
    "Shouting",
    "No shouting: capitals and exclamation marks are in proportion.",
    "Write in sentence case and end sentences with one mark; shouting reads as spam.",
  );
};

const SPAM_PHRASES = [
  "act now",
  "100% free",
  "risk-free",
  "risk free",
  "guaranteed",
  "click here",
  "limited time offer",
  "limited time only",
  "you have been selected",
  "you've been selected",
  "congratulations, you",
  "you are a winner",
  "you won",
  "no credit check",
  "cash bonus",
  "double your income",
  "make money fast",
  "earn money fast",
  "free money",
  "no obligation",
  "buy now",
  "order now",
  "call now",
  "apply now",
  "urgent response needed",
  "once in a lifetime",
  "this is not spam",
  "lowest price",
  "best price",
  "instant access",
  "exclusive deal",
  "get paid",
  "work from home",
  "eliminate debt",
  "lose weight",
  "dear friend",
  "final notice",
  "100% satisfied",
  "$$$",
];
const SPAM_MATCHER = createPhraseMatcher(SPAM_PHRASES.map((phrase) => foldForMatch(phrase)));
const SPAM_HEAVY = 3;

/** Phrases that spam filters weigh heavily and readers distrust. */
export const checkSpamPhrases: Check = (_message, { views }) => {
  const findings = createFindings();
  const distinct = new Set<number>();
  for (const field of FIELDS) {
    const view = views.normalized(field);
    SPAM_MATCHER.scan(
      view.text,
      (index, start, end) => {
        if (!isWholeWord(view.text, start, end)) return;
        distinct.add(index);
        findings.add("warn", "low", `'${SPAM_PHRASES[index]}' in ${field}`, () =>
          views.normalizedSpan(field, start, end),
        );
      },
      (end) => isWordEnd(view.text, end),
    );
  }
  if (distinct.size >= SPAM_HEAVY) findings.add("warn", "medium", `${distinct.size} different spam phrases`);
  return findings.result(
    "spam_phrases",
    "Spam phrases",
    "No phrases that spam filters single out.",
    "Say plainly what you offer; these phrases push mail into spam folders.",
  );
};

const OPT_OUT_PHRASES = [
  "unsubscribe",
  "opt out",
  "opt-out",
  "manage your preferences",
  "manage preferences",
  "email preferences",
  "notification settings",
  "reply stop",
  "abmelden",
  "désabonner",
  "désinscrire",
  "darse de baja",
  "cancelar suscripción",
  "disiscriviti",
  "afmelden",
];
const OPT_OUT_MATCHER = createPhraseMatcher(OPT_OUT_PHRASES.map((phrase) => foldForMatch(phrase)));

/** Campaign messages must tell the reader how to stop receiving them (CAN-SPAM, GDPR, PECR). */
export const checkOptOut: Check = (message, { views }) => {
  const id = "opt_out";
  const name = "Opt-out for campaigns";
  if (message.campaign.trim().length === 0) {
    return skipped(id, name, "Not a campaign message (no campaign given), so no opt-out line is required.");
  }
  let found = false;
  const view = views.normalized("body");
  OPT_OUT_MATCHER.scan(view.text, () => {
    found = true;
    return false;
  });
  const findings = createFindings();
  if (!found) {
    findings.add(
      "fail",
      "medium",
      `campaign '${message.campaign}' has no opt-out or unsubscribe wording in the body`,
    );
  }
  return findings.result(
    id,
    name,
    "The campaign message tells the reader how to unsubscribe.",
    "Add an unsubscribe link or a line such as 'Reply STOP to unsubscribe'.",
  );
};

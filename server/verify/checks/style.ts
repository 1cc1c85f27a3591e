import type { MessageField } from "../../../pipeline/domain/verify-request.ts";
import { countLetters } from "./capitals.ts";
import { type Check, createFindings, skipped } from "./check-types.ts";
import { isWholeWord } from "./normalize.ts";
import { SPAM_PHRASES } from "./style-phrases.ts";

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

function capitalShare(text: string): { letters: number; share: number } {
  const { letters, capitals } = countLetters(text);
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
    // Most text holds neither mark; asking natively first skips the search.
    if (!text.includes("!") && !text.includes("?")) continue;
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

const SPAM_HEAVY = 3;

/** Phrases that spam filters weigh heavily and readers distrust. */
export const checkSpamPhrases: Check = (_message, { views }) => {
  const findings = createFindings();
  const distinct = new Set<number>();
  for (const field of FIELDS) {
    const text = views.folded(field);
    for (const { phrase, start, end } of views.knownPhrases(field).spam) {
      if (!isWholeWord(text, start, end)) continue;
      distinct.add(phrase);
      findings.add("warn", "low", `'${SPAM_PHRASES[phrase]}' in ${field}`, () =>
        views.foldedSpan(field, start, end),
      );
    }
  }
  if (distinct.size >= SPAM_HEAVY) findings.add("warn", "medium", `${distinct.size} different spam phrases`);
  return findings.result(
    "spam_phrases",
    "Spam phrases",
    "No phrases that spam filters single out.",
    "Say plainly what you offer; these phrases push mail into spam folders.",
  );
};

/** Campaign messages must tell the reader how to stop receiving them (CAN-SPAM, GDPR, PECR). */
export const checkOptOut: Check = (message, { views }) => {
  const id = "opt_out";
  const name = "Opt-out for campaigns";
  if (message.campaign.trim().length === 0) {
    return skipped(id, name, "Not a campaign message (no campaign given), so no opt-out line is required.");
  }
  const found = views.knownPhrases("body").optOut.length > 0;
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

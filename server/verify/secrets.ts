import type { MessageField } from "../../pipeline/domain/verify-request.ts";
import { type Check, createFindings, type Findings } from "./check-types.ts";
import type { TextViews } from "./text-views.ts";

const ID = "secrets";
const NAME = "Secrets and credentials";
const FIELDS: readonly MessageField[] = ["subject", "body"];

// Tested on whole tokens (maximal runs of [A-Za-z0-9_.-]), anchored at the token start, so each
// pattern reads a token once.
const TOKEN_KINDS: readonly [RegExp, string][] = [
  [/^sk-(?:proj-|ant-|live-|test-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}$/, "an API key (sk-...)"],
  [/^[sr]k_(?:live|test)_[A-Za-z0-9]{16,}$/, "a Stripe API key"],
  [/^(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}$/, "an AWS access key id"],
  [/^gh[pousr]_[A-Za-z0-9]{36,}$/, "a GitHub token"],
  [/^github_pat_[A-Za-z0-9_]{22,}$/, "a GitHub token"],
  [/^glpat-[A-Za-z0-9_-]{20,}$/, "a GitLab token"],
  [/^xox[abposre]-[A-Za-z0-9-]{10,}$/, "a Slack token"],
  [/^AIza[0-9A-Za-z_-]{35}$/, "a Google API key"],
  [/^hf_[A-Za-z0-9]{30,}$/, "a Hugging Face token"],
  [/^npm_[A-Za-z0-9]{36}$/, "an npm token"],
  [/^eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}$/, "a JSON Web Token"],
];
const MIN_TOKEN = 14;

function isTokenChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45 ||
    code === 46
  );
}

function mask(secret: string): string {
  return `${secret.slice(0, 6)}… (${secret.length} characters, masked)`;
}

function scanTokens(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  for (let i = 0; i < text.length; i++) {
    if (!isTokenChar(text.charCodeAt(i))) continue;
    let end = i;
    while (end < text.length && isTokenChar(text.charCodeAt(end))) end += 1;
    const runEnd = end;
    while (end > i && text.charCodeAt(end - 1) === 46) end -= 1;
    if (end - i >= MIN_TOKEN) {
      const token = text.slice(i, end);
      const kind = TOKEN_KINDS.find(([pattern]) => pattern.test(token))?.[1];
      if (kind) {
        const start = i;
        const stop = end;
        findings.add("fail", "critical", `${kind} in ${field}`, () =>
          views.span(field, start, stop, mask(token)),
        );
      }
    }
    i = runEnd;
  }
}

const BEARER = /\bbearer[ \t]{1,4}/gi;

function scanBearer(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  BEARER.lastIndex = 0;
  for (let match = BEARER.exec(text); match; match = BEARER.exec(text)) {
    const start = BEARER.lastIndex;
    let end = start;
    while (end < text.length && (isTokenChar(text.charCodeAt(end)) || "~+/".includes(text.charAt(end))))
      end += 1;
    while (end < text.length && text.charAt(end) === "=") end += 1;
    const token = text.slice(start, end);
    if (token.length >= 16 && /\d/.test(token)) {
      findings.add("fail", "critical", `a bearer token in ${field}`, () =>
        views.span(field, start, end, mask(token)),
      );
    }
    BEARER.lastIndex = Math.max(end, BEARER.lastIndex);
  }
}

const KEY_HEADER = /^-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/;

function scanPrivateKeys(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  let endMissing = false;
  for (let at = text.indexOf("-----BEGIN "); at >= 0; at = text.indexOf("-----BEGIN ", at + 1)) {
    const header = KEY_HEADER.exec(text.slice(at, at + 80));
    if (!header) continue;
    let end = at + header[0].length;
    // One search for the footer per block at most, and none once a search came back empty.
    const footer = endMissing ? -1 : text.indexOf("-----END ", end);
    if (footer < 0) endMissing = true;
    else {
      const close = text.indexOf("-----", footer + 9);
      end = close >= 0 && close - footer < 80 ? close + 5 : footer + 9;
    }
    const stop = end;
    findings.add("fail", "critical", `a private key in ${field}`, () =>
      views.span(field, at, stop, `${header[0]}…(masked)`),
    );
    at = stop - 1;
  }
}

/** API keys, tokens and private keys that must never leave in a message. */
export const checkSecrets: Check = (_message, { views }) => {
  const findings = createFindings();
  for (const field of FIELDS) {
    const text = views.text(field);
    scanTokens(text, field, views, findings);
    scanBearer(text, field, views, findings);
    scanPrivateKeys(text, field, views, findings);
  }
  return findings.result(
    ID,
    NAME,
    "No API keys, tokens or private keys.",
    "Remove the secret from the message and rotate it: treat anything already sent as compromised.",
  );
};

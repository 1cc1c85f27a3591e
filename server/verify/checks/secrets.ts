import type { MessageField } from "../../../pipeline/domain/verify-request.ts";
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
// Every kind's token holds one of these: the "-" or "_" after its prefix (sk-, sk_, rk_, gh?_,
// github_pat_, glpat-, xox?-, hf_, npm_), the "A" that starts AWS and Google keys, the "J" of "eyJ". Only
// the tokens around them are read: most text holds none, and costs four native searches.
const TOKEN_MARKERS = ["-", "_", "A", "J"];

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

/** `[start, end)` of the maximal token runs, at least MIN_TOKEN long, that hold a marker; by start. */
function markedTokens(text: string): [number, number][] {
  const ends = new Map<number, number>();
  for (const marker of TOKEN_MARKERS) {
    // Each search resumes after the run it found: every unit is read at most once per marker.
    for (let at = text.indexOf(marker), end = 0; at >= 0; at = text.indexOf(marker, end)) {
      let start = at;
      while (start > 0 && isTokenChar(text.charCodeAt(start - 1))) start -= 1;
      end = at + 1;
      while (end < text.length && isTokenChar(text.charCodeAt(end))) end += 1;
      if (end - start >= MIN_TOKEN) ends.set(start, end);
    }
  }
  return [...ends].sort((a, b) => a[0] - b[0]);
}

function scanTokens(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  for (const [start, runEnd] of markedTokens(text)) {
    let end = runEnd;
    while (end > start && text.charCodeAt(end - 1) === 46) end -= 1;
    if (end - start < MIN_TOKEN) continue;
    const token = text.slice(start, end);
    const kind = TOKEN_KINDS.find(([pattern]) => pattern.test(token))?.[1];
    if (kind) {
      const stop = end;
      findings.add("fail", "critical", `${kind} in ${field}`, () =>
        views.span(field, start, stop, mask(token)),
      );
    }
  }
}

const BEARER = /\bbearer[ \t]{1,4}/gi;

function scanBearer(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  if (!views.mayHold(field, "bearer")) return;
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

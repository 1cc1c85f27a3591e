import type { MessageField } from "../../../pipeline/domain/verify-request.ts";
import { type Check, createFindings, type Findings, quoteText } from "./check-types.ts";
import { isIpLiteral, isShortener, parseLink, sameSite, shownHost } from "./link-hosts.ts";
import type { TextViews } from "./text-views.ts";

const ID = "links";
const NAME = "Links";
const FIELDS: readonly MessageField[] = ["subject", "body"];

// Bounded, and each repeated class excludes the delimiter that ends it: one pass over the text. The
// scans below first ask natively for a literal every match holds, which most text lacks.
const URL_PATTERN = /\b(?:https?:\/\/(?:\[[0-9A-Fa-f:.]{2,45}\])?|www\.)[^\s<>"'`)\]]{0,2048}/gi;
const SCRIPT_SCHEME = /\b(?:javascript|vbscript):(?=\S)|\bdata:[a-z]{1,20}\/[a-z0-9.+-]{1,60}[;,]/gi;
const MARKDOWN_LINK = /\[([^[\]\r\n]{1,300})\]\(([^()\s]{1,2048})\)/g;
const ANCHOR_TAG = /<a\s[^<>]{0,1000}>/gi;
const HREF = /\bhref\s{0,3}=\s{0,3}(?:"([^"]{0,2048})"|'([^']{0,2048})'|([^\s"'>]{1,2048}))/i;
const INNER_TAG = /<[^<>]{0,200}>/g;
const CLOSE_TAG = /<\/a/gi;
const MAX_LINK_TEXT = 500;
const TRAILING_PUNCTUATION = ".,;:!?";

function trimTrailing(raw: string): string {
  let end = raw.length;
  while (end > 0 && TRAILING_PUNCTUATION.includes(raw.charAt(end - 1))) end -= 1;
  return raw.slice(0, end);
}

function scanUrls(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  // Every match holds "://" or "www." in some mix of cases.
  if (!text.includes("://") && !views.mayHold(field, "www.")) return;
  URL_PATTERN.lastIndex = 0;
  for (let match = URL_PATTERN.exec(text); match; match = URL_PATTERN.exec(text)) {
    const start = match.index;
    const raw = trimTrailing(match[0]);
    const end = start + raw.length;
    const url = parseLink(raw);
    if (!url) continue;
    const span = () => views.span(field, start, end);
    const host = url.hostname;
    if (url.username || url.password) {
      findings.add(
        "fail",
        "high",
        `a link in ${field} puts a user name before its real host ${host}, which makes it look like another site`,
        span,
      );
    } else if (isIpLiteral(host)) {
      findings.add("warn", "medium", `a link in ${field} points to the bare IP address ${host}`, span);
    } else if (isShortener(host)) {
      findings.add(
        "warn",
        "low",
        `a link in ${field} goes through the shortener ${host}, which hides where it leads`,
        span,
      );
    } else if (host.split(".").some((label) => label.startsWith("xn--"))) {
      findings.add(
        "warn",
        "low",
        `a link in ${field} uses the internationalised domain ${host}, which can imitate another`,
        span,
      );
    }
  }
}

/** Every SCRIPT_SCHEME match has a colon right after "ipt" or "ata", in any case; colons are few. */
function mayHoldScheme(text: string): boolean {
  for (let at = text.indexOf(":", 3); at >= 0; at = text.indexOf(":", at + 1)) {
    const before = text.slice(at - 3, at).toLowerCase();
    if (before === "ipt" || before === "ata") return true;
  }
  return false;
}

function scanSchemes(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  if (!mayHoldScheme(text)) return;
  SCRIPT_SCHEME.lastIndex = 0;
  for (let match = SCRIPT_SCHEME.exec(text); match; match = SCRIPT_SCHEME.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    const scheme = match[0].slice(0, match[0].indexOf(":") + 1).toLowerCase();
    findings.add("fail", "high", `a ${scheme} URL in ${field}, which runs code or hides content`, () =>
      views.span(field, start, end),
    );
  }
}

function compareShownAndTarget(
  shownText: string,
  target: string,
  field: MessageField,
  span: () => ReturnType<TextViews["span"]>,
  findings: Findings,
): void {
  const shown = shownHost(shownText);
  if (!shown) return;
  const url = parseLink(target.trim());
  if (!url?.hostname) return;
  if (sameSite(shown, url.hostname)) return;
  findings.add(
    "fail",
    "high",
    `link text in ${field} shows ${quoteText(shown)} but the link goes to ${quoteText(url.hostname)}`,
    span,
  );
}

function scanMarkdownLinks(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  if (!text.includes("](")) return;
  MARKDOWN_LINK.lastIndex = 0;
  for (let match = MARKDOWN_LINK.exec(text); match; match = MARKDOWN_LINK.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    compareShownAndTarget(
      match[1] ?? "",
      match[2] ?? "",
      field,
      () => views.span(field, start, end),
      findings,
    );
  }
}

function scanAnchors(text: string, field: MessageField, views: TextViews, findings: Findings): void {
  if (!text.includes("<")) return;
  ANCHOR_TAG.lastIndex = 0;
  // Position of the next "</a" at or after the current anchor; it only moves forward: linear.
  let close = -2;
  for (let match = ANCHOR_TAG.exec(text); match; match = ANCHOR_TAG.exec(text)) {
    const href = HREF.exec(match[0]);
    const target = href?.[1] ?? href?.[2] ?? href?.[3];
    if (target === undefined) continue;
    const start = match.index;
    const textStart = start + match[0].length;
    if (close !== -1 && close < textStart) {
      CLOSE_TAG.lastIndex = textStart;
      close = CLOSE_TAG.exec(text)?.index ?? -1;
    }
    if (close < 0 || close - textStart > MAX_LINK_TEXT) continue;
    const shown = text.slice(textStart, close).replace(INNER_TAG, "");
    const end = close;
    compareShownAndTarget(shown, target, field, () => views.span(field, start, end), findings);
  }
}

/**
 * Links that mislead: text showing one site and pointing to another, user names before the host,
 * bare IP addresses, shorteners, look-alike internationalised domains, javascript: and data: URLs.
 */
export const checkLinks: Check = (_message, { views }) => {
  const findings = createFindings();
  for (const field of FIELDS) {
    const text = views.text(field);
    scanUrls(text, field, views, findings);
    scanSchemes(text, field, views, findings);
    scanMarkdownLinks(text, field, views, findings);
    scanAnchors(text, field, views, findings);
  }
  return findings.result(
    ID,
    NAME,
    "No misleading or unsafe links.",
    "Link to the full https address the reader expects, and make link text match where it goes.",
  );
};

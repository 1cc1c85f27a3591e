import type { PageSummary } from "../../pipeline/domain/submission.ts";
import { parseContentType } from "../outbound/content-type.ts";
import type { FetchedPage } from "../outbound/safe-fetch.ts";
import { decodeBody, htmlText, judgeReadability, tidy } from "./page-text.ts";

export interface PageReading {
  summary: PageSummary;
  /** The text to score with the description, or null when the page gives none. */
  text: string | null;
  /** Tells the submitter what was and was not scored. */
  note: string | null;
}

const HTML = new Set(["text/html", "application/xhtml+xml"]);

/** What of a fetched page is scored. A page that is not text, or is garbage, leaves the description alone. */
export function readPage(page: FetchedPage, maxChars: number): PageReading {
  const type = parseContentType(page.contentType);
  const summary = (textChars: number, used: boolean): PageSummary => ({
    final_url: page.finalUrl,
    redirects: page.redirects,
    http_status: page.status,
    content_type: page.contentType,
    bytes: page.bytes,
    text_chars: textChars,
    used,
  });
  const alone = (why: string, textChars = 0): PageReading => ({
    summary: summary(textChars, false),
    text: null,
    note: `Scored on the description alone: the page was fetched, but ${why}.`,
  });
  if (page.body === null) {
    return alone(`it is ${type ? type.mime : "of no declared content type"}, not an HTML or text page`);
  }
  const decoded = decodeBody(page.body, type?.charset ?? null);
  const text = type && HTML.has(type.mime) ? htmlText(decoded) : tidy(decoded);
  const readable = judgeReadability(text);
  if (!readable.ok) return alone(readable.why, text.length);
  const cut = text.length > maxChars;
  return {
    summary: summary(text.length, true),
    text: cut ? text.slice(0, maxChars) : text,
    note: cut ? `Scored on the description and the first ${maxChars} characters of the page's text.` : null,
  };
}

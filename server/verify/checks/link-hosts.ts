// Host names in links: what a reader sees versus where a link goes.

import { asciiHost, hostProblem } from "./email-address.ts";

const SHORTENERS = new Set(
  (
    "bit.ly t.co tinyurl.com goo.gl ow.ly is.gd buff.ly rebrand.ly cutt.ly shorturl.at t.ly rb.gy tiny.cc " +
    "bl.ink lnkd.in s.id v.gd bit.do adf.ly shorte.st mcaf.ee soo.gd qr.ae tr.im x.co short.io dub.sh"
  ).split(" "),
);

/** True for link shorteners, which hide the destination from the reader and from filters. */
export function isShortener(host: string): boolean {
  return SHORTENERS.has(host.replace(/^www\./, ""));
}

/** IPv4 (after the URL parser's normalisation of forms like 0x7f.1) or bracketed IPv6. */
export function isIpLiteral(host: string): boolean {
  return host.startsWith("[") || /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function bare(host: string): string {
  return host.toLowerCase().replace(/^www\./, "");
}

/** Same site when equal or one is a subdomain of the other (no public suffix list: a known limit). */
export function sameSite(shown: string, target: string): boolean {
  const a = bare(shown);
  const b = bare(target);
  return a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);
}

// Link text such as "report.pdf" names a file, not a site, unless it carries a scheme or "www.".
const FILE_EXTENSIONS = new Set(
  "csv doc docx gif htm html jpeg jpg js json md mov mp3 mp4 pdf png ppt pptx py svg ts txt xls xlsx xml zip".split(
    " ",
  ),
);

/**
 * The host a piece of link text displays, if it displays one: "example.com", "www.example.com/path",
 * "https://example.com". Plain words and sentences display none.
 */
export function shownHost(text: string): string | undefined {
  let candidate = text.trim().toLowerCase();
  if (candidate.length === 0 || candidate.length > 300 || /\s/.test(candidate)) return undefined;
  const explicit = /^(?:[a-z][a-z0-9+.-]{0,20}:\/\/|www\.)/.test(candidate);
  candidate = candidate.replace(/^[a-z][a-z0-9+.-]{0,20}:\/\//, "");
  const cut = candidate.search(/[/?#:]/);
  const host = cut >= 0 ? candidate.slice(0, cut) : candidate;
  const at = host.lastIndexOf("@");
  const ascii = asciiHost(at >= 0 ? host.slice(at + 1) : host);
  if (!ascii?.includes(".") || hostProblem(ascii) !== undefined) return undefined;
  if (!explicit && FILE_EXTENSIONS.has(ascii.slice(ascii.lastIndexOf(".") + 1))) return undefined;
  return ascii;
}

/** The host of a URL written in a message; bare `www.` links get a scheme first. */
export function parseLink(raw: string): URL | undefined {
  const absolute = /^www\./i.test(raw) ? `http://${raw}` : raw;
  // canParse first: a thrown TypeError per malformed link costs more than the whole scan.
  return URL.canParse(absolute) ? new URL(absolute) : undefined;
}

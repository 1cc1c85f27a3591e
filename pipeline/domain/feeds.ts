import { z } from "zod";
import { type FeedChannel, MAIN_FEED } from "./feed-channels.ts";
import type { Pick } from "./pick.ts";
import { RelevanceSchema } from "./relevance-model.ts";
import type { DailySnapshot } from "./snapshot.ts";

// The Atom 1.0 and JSON Feed 1.1 documents of the recent picks: one entry per pick, newest day first,
// then by rank. Pure: the site's base URL and the REG FIT level names come in as arguments.

/** How many published days the feeds cover. */
export const FEED_DAYS = 14;

export const FEED_TITLE = "Research-Picks";
export const FEED_DESCRIPTION =
  "Daily-curated AI research picks from arXiv, scored on a published nine-axis rubric (A1..A9) and REG FIT.";

/** What a feed needs besides the days: where the site lives and what REG FIT's levels are called. */
export interface FeedSite {
  /** The site's base URL without a trailing slash, e.g. `https://picks.example.org`. */
  baseUrl: string;
  /** REG FIT level names by score, from the rubric (`{1: "would not pass as is", ...}`). */
  regFitNames?: Readonly<Record<number, string>>;
}

/** One entry as both formats carry it: what the builders read, whatever list the feed is of. */
export interface FeedEntry {
  /** Stable across reruns and base URLs: the paper's arXiv page plus the day and the list it is in. */
  id: string;
  title: string;
  url: string;
  pdfUrl: string;
  /** The site's page for the pick's day. */
  dayUrl: string;
  published: string;
  updated: string;
  /** One line: rank, day, must-read likelihood (when the model gave one), total with its groups, REG FIT. */
  summary: string;
  abstract: string;
  authors: string[];
  tags: string[];
  sample: boolean;
}

/** One pick as both feeds carry it. */
export interface FeedItem extends FeedEntry {
  pick: Pick;
}

/** `https://arxiv.org/abs/2401.12345#pick-2026-11-20`: a paper picked on two days gets two entries. */
export const feedItemId = (pick: Pick): string => `${pick.abs_url}#pick-${pick.date}`;

/**
 * The must-read likelihood as the feeds and the page show it: a whole percent, never 0% or 100%, which
 * would claim a certainty the model does not have.
 * @example likelihoodText(0.9269) // "93%"
 */
export function likelihoodText(value: number): string {
  const percent = Math.round(value * 100);
  if (percent < 1) return "<1%";
  if (percent > 99) return ">99%";
  return `${percent}%`;
}

function summaryOf(pick: Pick, sample: boolean, site: FeedSite): string {
  const { total, groups, reg_fit } = pick.scores;
  const regName = site.regFitNames?.[reg_fit.score];
  const mustRead = pick.relevance?.must_read;
  const likelihood = mustRead === undefined ? "" : `must-read likelihood ${likelihoodText(mustRead)}, `;
  return (
    `${sample ? "Sample data. " : ""}Pick #${pick.rank} of ${pick.date}: ${likelihood}total ${total}/45 ` +
    `(substrate ${groups.substrate}/15, governance ${groups.governance}/15, ` +
    `research ${groups.research}/15); ` +
    `REG FIT ${reg_fit.score}/3${regName ? ` (${regName})` : ""}.`
  );
}

/** The picks of the newest `FEED_DAYS` days, newest day first, then by rank. */
export function feedItems(days: readonly DailySnapshot[], site: FeedSite, maxDays = FEED_DAYS): FeedItem[] {
  const newest = [...days].sort((a, b) => (a.date < b.date ? 1 : -1)).slice(0, maxDays);
  return newest.flatMap((day) =>
    [...day.picks]
      .sort((a, b) => a.rank - b.rank)
      .map((pick) => ({
        id: feedItemId(pick),
        title: pick.title,
        url: pick.abs_url,
        pdfUrl: pick.pdf_url,
        dayUrl: `${site.baseUrl}/?date=${day.date}`,
        published: `${day.date}T00:00:00Z`,
        updated: day.generated_at,
        summary: summaryOf(pick, day.sample, site),
        abstract: pick.summary,
        authors: pick.authors,
        tags: pick.categories,
        pick,
        sample: day.sample,
      })),
  );
}

/** The feed's own `updated`: the newest generation time among the days it covers (no clock needed). */
export function feedUpdated(days: readonly DailySnapshot[], maxDays = FEED_DAYS): string {
  const newest = [...days].sort((a, b) => (a.date < b.date ? 1 : -1)).slice(0, maxDays);
  const times = newest.map((day) => day.generated_at).sort();
  return times.at(-1) ?? "1970-01-01T00:00:00Z";
}

// XML 1.0 allows tab, LF, CR and U+0020 and up, minus lone surrogates and U+FFFE/U+FFFF. Anything else
// (a stray control character in a title) would make the whole feed malformed, so it is dropped.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text safe inside an XML element or a double-quoted attribute. */
export function xmlEscape(text: string): string {
  return text
    .replace(NOT_XML_CHAR, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

const element = (name: string, text: string, attributes = ""): string =>
  `<${name}${attributes}>${xmlEscape(text)}</${name}>`;

const link = (rel: string, type: string, href: string): string =>
  `<link rel="${rel}" type="${type}" href="${xmlEscape(href)}"/>`;

function atomEntry(item: FeedEntry): string {
  return [
    "  <entry>",
    `    ${element("id", item.id)}`,
    `    ${element("title", item.title, ' type="text"')}`,
    `    ${link("alternate", "text/html", item.url)}`,
    `    ${link("enclosure", "application/pdf", item.pdfUrl)}`,
    `    ${link("related", "text/html", item.dayUrl)}`,
    `    ${element("published", item.published)}`,
    `    ${element("updated", item.updated)}`,
    ...item.authors.map((name) => `    <author>${element("name", name)}</author>`),
    ...item.tags.map((tag) => `    <category term="${xmlEscape(tag)}"/>`),
    `    ${element("summary", item.summary, ' type="text"')}`,
    `    ${element("content", `${item.summary}\n\n${item.abstract}`, ' type="text"')}`,
    "  </entry>",
  ].join("\n");
}

/** `Research-Picks: governance (sample data)`: the channel's name, and whether the days are the sample. */
export function feedTitle(channel: FeedChannel, sample: boolean): string {
  const title = channel.label === null ? FEED_TITLE : `${FEED_TITLE}: ${channel.label}`;
  return sample ? `${title} (sample data)` : title;
}

const descriptionOf = (channel: FeedChannel): string =>
  channel.slug === null ? FEED_DESCRIPTION : `${FEED_DESCRIPTION} ${channel.description}`;

/**
 * The Atom 1.0 document (RFC 4287) of the items. `sample` says whether the covered days are the sample,
 * which an empty feed cannot tell from its items.
 */
export function buildAtomFeed(
  items: readonly FeedEntry[],
  site: FeedSite,
  updated: string,
  channel: FeedChannel = MAIN_FEED,
  sample = items.some((item) => item.sample),
): string {
  const self = `${site.baseUrl}/${channel.atomFile}`;
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">',
    `  ${element("id", self)}`,
    `  ${element("title", feedTitle(channel, sample), ' type="text"')}`,
    `  ${element("subtitle", descriptionOf(channel), ' type="text"')}`,
    `  ${element("updated", updated)}`,
    `  <author>${element("name", FEED_TITLE)}${element("uri", `${site.baseUrl}/`)}</author>`,
    `  ${link("self", "application/atom+xml", self)}`,
    `  ${link("alternate", "text/html", `${site.baseUrl}/`)}`,
    `  ${element("generator", FEED_TITLE)}`,
    ...items.map(atomEntry),
    "</feed>",
    "",
  ].join("\n");
}

const IsoTime = z.iso.datetime({ offset: true });

/** An entry of JSON Feed 1.1 (https://jsonfeed.org/version/1.1), as far as these feeds use it. */
export const JsonFeedEntrySchema = z.object({
  id: z.string().min(1),
  url: z.url(),
  title: z.string(),
  summary: z.string(),
  content_text: z.string().min(1),
  date_published: IsoTime,
  date_modified: IsoTime,
  authors: z.array(z.object({ name: z.string() })),
  tags: z.array(z.string()),
  attachments: z.array(z.object({ url: z.url(), mime_type: z.string().min(1), title: z.string() })),
});

/** An entry of the picks' feeds: `_research_picks` carries the scores for programs. */
export const JsonFeedItemSchema = JsonFeedEntrySchema.extend({
  _research_picks: z.object({
    date: z.string(),
    rank: z.int().min(1),
    arxiv_id: z.string(),
    total: z.int().min(0).max(45),
    must_read: RelevanceSchema.shape.must_read,
    groups: z.object({ substrate: z.int(), governance: z.int(), research: z.int() }),
    reg_fit: z.int().min(1).max(3),
    sample: z.boolean(),
    day_url: z.url(),
  }),
});

/** The document around the entries, the same for every feed. */
export const JsonFeedHeadSchema = z.object({
  version: z.literal("https://jsonfeed.org/version/1.1"),
  title: z.string().min(1),
  home_page_url: z.url(),
  feed_url: z.url(),
  description: z.string(),
  language: z.string(),
  authors: z.array(z.object({ name: z.string(), url: z.url() })).min(1),
});

export const JsonFeedSchema = JsonFeedHeadSchema.extend({ items: z.array(JsonFeedItemSchema) });
export type JsonFeed = z.infer<typeof JsonFeedSchema>;

type JsonFeedEntry = z.infer<typeof JsonFeedEntrySchema>;

/**
 * The JSON Feed 1.1 document of any entries; `extension` adds each entry's own `_`-prefixed object (JSON
 * Feed's rule for extensions), which is what tells one feed's entries from another's.
 */
export function buildJsonFeedOf<E extends FeedEntry, X extends object>(
  items: readonly E[],
  site: FeedSite,
  channel: FeedChannel,
  sample: boolean,
  extension: (item: E) => X,
): z.infer<typeof JsonFeedHeadSchema> & { items: Array<JsonFeedEntry & X> } {
  return {
    version: "https://jsonfeed.org/version/1.1",
    title: feedTitle(channel, sample),
    home_page_url: `${site.baseUrl}/`,
    feed_url: `${site.baseUrl}/${channel.jsonFile}`,
    description: descriptionOf(channel),
    language: "en",
    authors: [{ name: FEED_TITLE, url: `${site.baseUrl}/` }],
    items: items.map((item) => ({
      id: item.id,
      url: item.url,
      title: item.title,
      summary: item.summary,
      content_text: `${item.summary}\n\n${item.abstract}`,
      date_published: item.published,
      date_modified: item.updated,
      authors: item.authors.map((name) => ({ name })),
      tags: item.tags,
      attachments: [{ url: item.pdfUrl, mime_type: "application/pdf", title: "PDF" }],
      ...extension(item),
    })),
  };
}

/** The JSON Feed 1.1 document of the picks; `_research_picks` carries the scores for programs. */
export function buildJsonFeed(
  items: readonly FeedItem[],
  site: FeedSite,
  channel: FeedChannel = MAIN_FEED,
  sample = items.some((item) => item.sample),
): JsonFeed {
  return buildJsonFeedOf(items, site, channel, sample, (item) => ({
    _research_picks: {
      date: item.pick.date,
      rank: item.pick.rank,
      arxiv_id: item.pick.arxiv_id,
      total: item.pick.scores.total,
      ...(item.pick.relevance?.must_read === undefined ? {} : { must_read: item.pick.relevance.must_read }),
      groups: item.pick.scores.groups,
      reg_fit: item.pick.scores.reg_fit.score,
      sample: item.sample,
      day_url: item.dayUrl,
    },
  }));
}

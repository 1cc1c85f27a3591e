// A reader's list of a day as Atom and JSON Feed entries, for the feed at their capability URL
// (/v1/feeds/for-you/{token}.xml and .json). The documents come from the picks' feed builder (feeds.ts);
// this file turns ranked screened papers into its entries, each saying in words why it is in the list.
// Pure: the token, the base URL and the day's time come in as arguments.

import { z } from "zod";
import type { FeedChannel } from "./feed-channels.ts";
import {
  buildAtomFeed,
  buildJsonFeedOf,
  type FeedEntry,
  type FeedSite,
  JsonFeedEntrySchema,
  JsonFeedHeadSchema,
  likelihoodText,
} from "./feeds.ts";
import { type PersonalItem, type WhyForYou, WhyForYouSchema } from "./personal-ranking.ts";

/**
 * Entries in a personal feed: a day's top of the list. A feed reader shows a handful a day; the tier's
 * max_limit caps it too (`GET /v1/me/picks` gives the whole list).
 */
export const FOR_YOU_FEED_ITEMS = 10;

/** The capability URL's token: 43 base64url characters (32 random bytes) after `rpf_`. */
export const FEED_TOKEN_PATTERN = /^rpf_[A-Za-z0-9_-]{43}$/;

/** What an entry reads of a ranked screened paper. */
export interface FeedPaper {
  arxiv_id: string;
  title: string;
  summary: string;
  authors: readonly string[];
  categories: readonly string[];
  abs_url: string;
  picked: boolean;
}

/**
 * Why a paper is in the feed, as far as a capability URL may tell: the rule that placed it and its scores.
 * The URL ends up in shared OPML files and browser history, so the library and liked papers it is near
 * (whose titles can be a reader's private drafts) and the followed author or phrase are never named.
 */
export const FeedWhySchema = WhyForYouSchema.pick({
  global_likelihood: true,
  personal: true,
  placed_by: true,
}).extend({
  near_library: z
    .boolean()
    .describe(
      "the paper is near papers in the reader's library or likes (which ones is left out of the feed)",
    ),
});
export type FeedWhy = z.infer<typeof FeedWhySchema>;

/** The feed's reasons of a list's reasons: nothing that names the reader's library or follows. */
export function feedWhy(why: WhyForYou): FeedWhy {
  return {
    global_likelihood: why.global_likelihood,
    personal: why.personal,
    placed_by: why.placed_by,
    near_library: why.nearest.length > 0,
  };
}

export const ForYouNoteSchema = z.object({
  date: z.string(),
  rank: z.int().min(1).describe("the paper's place in this reader's list"),
  global_rank: z.int().min(1).describe("its place in the day's global order"),
  arxiv_id: z.string(),
  picked: z.boolean().describe("one of the day's published picks"),
  for_you: z.number().min(0).max(1),
  why_for_you: FeedWhySchema,
});

export const PersonalJsonFeedSchema = JsonFeedHeadSchema.extend({
  items: z.array(JsonFeedEntrySchema.extend({ _for_you: ForYouNoteSchema })),
});
export type PersonalJsonFeed = z.infer<typeof PersonalJsonFeedSchema>;

interface ForYouEntry extends FeedEntry {
  note: z.infer<typeof ForYouNoteSchema>;
}

/** The feed's channel: its files are the capability URL's two paths under the site's base. */
export function forYouChannel(token: string): FeedChannel {
  return {
    slug: "for-you",
    label: "for you",
    description:
      "The day's screened papers in your order, from your library, ratings and follows (GET /v1/me/picks).",
    atomFile: `v1/feeds/for-you/${token}.xml`,
    jsonFile: `v1/feeds/for-you/${token}.json`,
    keeps: () => true,
  };
}

/** Why the paper is where it is, in one sentence a feed reader shows; it names nothing of the reader's. */
export function whyText(why: FeedWhy): string {
  const likelihood =
    why.global_likelihood === null ? "" : ` Must-read likelihood ${likelihoodText(why.global_likelihood)}.`;
  const near = why.near_library ? " Near papers in your library or likes." : "";
  switch (why.placed_by) {
    case "followed_author":
      return `By an author you follow.${likelihood}`;
    case "followed_phrase":
      return `Mentions a phrase you follow.${likelihood}`;
    case "must_read":
      return `A must-read the global model is sure of, kept near the top of every list.${near}${likelihood}`;
    case "blend":
      return `Placed by your profile and the global model together.${near}${likelihood}`;
    case "global":
      return `In the day's global order: your profile holds nothing to rank by yet.${likelihood}`;
  }
}

/** The top `limit` of a reader's ranked day as feed entries, in the list's order. */
export function forYouEntries(input: {
  date: string;
  /** When the day was published: each entry's `updated`. */
  generatedAt: string;
  /** The day is the sample data: the titles say so. */
  sample: boolean;
  papers: readonly FeedPaper[];
  items: readonly PersonalItem[];
  limit: number;
  site: FeedSite;
}): ForYouEntry[] {
  const { date, papers, site } = input;
  return input.items.slice(0, input.limit).flatMap((item, position) => {
    const paper = papers[item.index];
    if (!paper) return [];
    const rank = position + 1;
    const global = item.index + 1;
    const why = feedWhy(item.why_for_you);
    return [
      {
        id: `${paper.abs_url}#for-you-${date}`,
        title: paper.title,
        url: paper.abs_url,
        pdfUrl: paper.abs_url.replace("/abs/", "/pdf/"),
        dayUrl: `${site.baseUrl}/?date=${date}`,
        published: `${date}T00:00:00Z`,
        updated: input.generatedAt,
        summary:
          `For you #${rank} of ${date} (global #${global}${paper.picked ? ", one of the day's picks" : ""}): ` +
          whyText(why),
        // A screened paper's summary can be empty; content_text must not be.
        abstract: paper.summary || paper.title,
        authors: [...paper.authors],
        tags: [...paper.categories],
        sample: input.sample,
        note: {
          date,
          rank,
          global_rank: global,
          arxiv_id: paper.arxiv_id,
          picked: paper.picked,
          for_you: item.for_you,
          why_for_you: why,
        },
      },
    ];
  });
}

/** The Atom document of the entries, at the token's URL. */
export function buildForYouAtom(
  entries: readonly ForYouEntry[],
  site: FeedSite,
  token: string,
  updated: string,
  sample: boolean,
): string {
  return buildAtomFeed(entries, site, updated, forYouChannel(token), sample);
}

/** The JSON Feed document of the entries; `_for_you` carries the list's place and reasons for programs. */
export function buildForYouJson(
  entries: readonly ForYouEntry[],
  site: FeedSite,
  token: string,
  sample: boolean,
): PersonalJsonFeed {
  return buildJsonFeedOf(entries, site, forYouChannel(token), sample, (entry) => ({ _for_you: entry.note }));
}

/** `POST /v1/me/feed-token`: the only time the token is shown. */
export const FeedTokenIssuedSchema = z.object({
  token: z
    .string()
    .regex(FEED_TOKEN_PATTERN)
    .describe("the capability: anyone with it reads this feed, nothing else"),
  issued_at: z.string(),
  atom_url: z.string().describe("the Atom feed's URL, to give a feed reader"),
  json_url: z.string().describe("the JSON Feed 1.1 URL"),
  replaced: z.boolean().describe("true when an earlier token existed: it answers 404 from now on"),
});
export type FeedTokenIssued = z.infer<typeof FeedTokenIssuedSchema>;

/** In `GET /v1/me/profile`: that a feed token exists and when it was issued, never the token. */
export const FeedTokenExportSchema = z
  .object({ issued_at: z.string() })
  .nullable()
  .describe(
    "the personal feed's token, in brief: when it was issued; null when none was (the token is never shown again)",
  );

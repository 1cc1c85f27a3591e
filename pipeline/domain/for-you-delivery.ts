// A key's `for_you` list as a `daily.published` delivery carries it: the head of the key's personal
// order of the day's screened papers (the `GET /v1/me/picks` list, without the nearest papers, which
// the full list explains), added to the event's body for that key's endpoints only. A key without a
// profile gets the event's body unchanged.

import { z } from "zod";
import { type PersonalItem, WhyForYouSchema } from "./personal-ranking.ts";

/** Papers a delivery lists: the day's head; `list_url` has the rest and the reasons in full. */
export const FOR_YOU_DELIVERED = 10;

export const ForYouDeliveredSchema = z
  .object({
    profile_version: z.int().min(1).describe("the profile version the list was ranked with"),
    personal: z.boolean().describe("false when nothing in the profile moves the order (the global one)"),
    screened: z.int().min(0).describe("how many papers the day screened: the list ranks all of them"),
    list_url: z.string().describe("the whole list with its reasons: GET it with the same key"),
    items: z
      .array(
        z.object({
          rank: z.int().min(1),
          global_rank: z.int().min(1).describe("the paper's place in the day's global order"),
          arxiv_id: z.string(),
          title: z.string(),
          abs_url: z.string(),
          picked: z.boolean().describe("one of the day's curated picks"),
          for_you: z.number().describe("the blended score, 0..1"),
          why_for_you: WhyForYouSchema.omit({ nearest: true }),
        }),
      )
      .max(FOR_YOU_DELIVERED),
  })
  .describe(
    "Only in `daily.published` deliveries to endpoints of a key that has a profile: the head of the " +
      "key's personal list of the day, ranked when the day was announced.",
  );
export type ForYouDelivered = z.infer<typeof ForYouDeliveredSchema>;

/** What the list is made from: a day's ranking for one profile (the reader service's `rankDay`). */
export interface RankedForDelivery {
  papers: readonly { arxiv_id: string; title: string; abs_url: string; picked: boolean }[];
  items: readonly PersonalItem[];
  version: number;
  personal: boolean;
}

/**
 * The delivered list of a ranked day: its first FOR_YOU_DELIVERED papers.
 * @example forYouDelivered(ranked, "2026-11-23", "https://picks.example.org").items.length // <= 10
 */
export function forYouDelivered(ranked: RankedForDelivery, date: string, apiBase: string): ForYouDelivered {
  return {
    profile_version: ranked.version,
    personal: ranked.personal,
    screened: ranked.papers.length,
    list_url: `${apiBase.replace(/\/+$/, "")}/v1/me/picks?date=${date}`,
    items: ranked.items.slice(0, FOR_YOU_DELIVERED).map((item, position) => {
      const paper = ranked.papers[item.index] as RankedForDelivery["papers"][number];
      const { nearest: _nearest, ...why } = item.why_for_you;
      return {
        rank: position + 1,
        global_rank: item.index + 1,
        arxiv_id: paper.arxiv_id,
        title: paper.title,
        abs_url: paper.abs_url,
        picked: paper.picked,
        for_you: item.for_you,
        why_for_you: why,
      };
    }),
  };
}

/**
 * The body of one key's delivery: the event's body with `data.for_you` added. The same body and list
 * always give the same bytes, so every attempt signs and sends the same body.
 * @example withForYou('{"type":"daily.published","timestamp":"…","data":{"date":"…"}}', list)
 */
export function withForYou(eventBody: string, list: ForYouDelivered): string {
  const body = JSON.parse(eventBody) as { data: Record<string, unknown> };
  return JSON.stringify({ ...body, data: { ...body.data, for_you: list } });
}

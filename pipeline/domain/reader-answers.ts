// The answers of the reader endpoints (`/v1/me/...`): one schema each, for the routes that build them
// and the OpenAPI document that describes them.

import { z } from "zod";
import { FeedTokenExportSchema } from "./personal-feed.ts";
import { WhyForYouSchema } from "./personal-ranking.ts";
import { FollowsSchema, RatingValueSchema } from "./reader-profile.ts";
import { TierNameSchema } from "./tiers.ts";

/** `GET /v1/me/picks`: `date` is checked as a calendar day by the route, as `/v1/daily/{date}` is. */
export const PersonalPicksQuerySchema = z.object({
  date: z.string().optional().describe("YYYY-MM-DD; the latest published day when absent"),
  limit: z.int().min(1).max(100).default(10).describe("papers in the answer, capped at the tier's max_limit"),
});

export const PersonalPickSchema = z.object({
  rank: z.int().min(1).describe("the paper's place in this reader's list"),
  global_rank: z.int().min(1).describe("its place in the day's global order"),
  arxiv_id: z.string(),
  title: z.string(),
  authors: z.array(z.string()),
  abs_url: z.string(),
  picked: z.boolean().describe("one of the day's published picks"),
  for_you: z.number().min(0).max(1).describe("how strongly this list places it, 0..1"),
  why_for_you: WhyForYouSchema,
});

export const PersonalPicksSchema = z.object({
  date: z.string(),
  tier: TierNameSchema,
  profile_version: z.int().min(0),
  personal: z.boolean().describe("false: the profile holds nothing to rank by, and this is the global order"),
  limit: z.int().min(1),
  capped: z.array(z.literal("limit")).describe("`limit` when it was lowered to the tier's max_limit"),
  screened: z.int().min(0).describe("papers ranked that day"),
  items: z.array(PersonalPickSchema),
});
export type PersonalPicks = z.infer<typeof PersonalPicksSchema>;

const CslExportItemSchema = z
  .object({
    id: z.string(),
    type: z.literal("article"),
    title: z.string().optional(),
    abstract: z.string().optional(),
    author: z.array(z.object({ literal: z.string() })).optional(),
    DOI: z.string().optional(),
    URL: z.string().optional(),
    number: z.string().optional(),
  })
  .describe("CSL-JSON: PUT it back to /v1/me/library to restore the same library");

/** `GET /v1/me/profile`: everything held for the key. */
export const ProfileExportSchema = z.object({
  key_id: z.string(),
  tier: TierNameSchema,
  version: z.int().min(0),
  updated_at: z.string().nullable(),
  library: z.array(CslExportItemSchema),
  pending: z
    .array(z.string())
    .describe(
      "library keys of items without a text yet: their arXiv id is neither screened nor found by the daily job",
    ),
  pending_reasons: z
    .array(
      z.object({
        key: z.string(),
        reason: z.string().describe("why it is pending: waiting for the daily job, or what arXiv answered"),
        looked_up_at: z.string().nullable().describe("when the daily job last asked arXiv, if it has"),
      }),
    )
    .describe("each pending item, in the order of `pending`, with its reason"),
  ratings: z.array(z.object({ arxiv_id: z.string(), rating: RatingValueSchema })),
  follows: FollowsSchema,
  model: z
    .object({
      profile_version: z.int().min(0),
      relevance_version: z.string(),
      positives: z.int().min(0),
      negatives: z.int().min(0),
      terms: z.int().min(0),
    })
    .nullable()
    .describe("the personal model fitted on the profile, in brief; null when there is nothing to fit"),
  bounds: z.object({ library: z.int(), ratings: z.int() }),
  feed_token: FeedTokenExportSchema,
});
export type ProfileExport = z.infer<typeof ProfileExportSchema>;

export const ProfileErasedSchema = z.object({
  erased: z.int().min(0).describe("records removed from the store"),
});

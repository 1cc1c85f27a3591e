// A reader's profile: the papers in their library, their ratings of screened papers and the authors and
// phrases they follow. It belongs to one API key, lives in the state store beside it and is the
// reader's own: exported whole, erased whole. The personal ranking learns from it.

import { z } from "zod";
import { ARXIV_ID_PATTERN } from "./arxiv-id.ts";
import type { TierName } from "./tiers.ts";

/** How much of each a tier's profile holds: the library's items and the ratings. */
export interface ProfileBounds {
  library: number;
  ratings: number;
}

export const PROFILE_BOUNDS: Record<TierName, ProfileBounds> = {
  free: { library: 100, ratings: 500 },
  pro: { library: 2_000, ratings: 10_000 },
  team: { library: 10_000, ratings: 50_000 },
  enterprise: { library: 10_000, ratings: 50_000 },
  bench: { library: 10_000, ratings: 50_000 },
};

/** Followed authors and phrases: each list at most this long, each entry at most this many characters. */
export const FOLLOWS_MAX = 50;
export const FOLLOW_MAX_LENGTH = 100;
/** A library item's title and abstract are kept to these lengths (code points): enough to rank by. */
export const TITLE_MAX_LENGTH = 500;
export const ABSTRACT_MAX_LENGTH = 5_000;
export const AUTHORS_MAX = 50;

/**
 * One paper of a library as the profile keeps it. `key` says what makes two items the same paper: the
 * arXiv id when there is one, else the DOI, else the title, lower-cased.
 */
export const LibraryItemSchema = z.object({
  key: z
    .string()
    .describe("`arxiv:<id>`, `doi:<doi>` or `title:<title>`: two items with one key are one paper"),
  arxiv_id: z.string().nullable().describe("the versionless arXiv id, when the item names one"),
  doi: z.string().nullable(),
  title: z.string().nullable(),
  abstract: z.string().nullable(),
  authors: z.array(z.string()),
});
export type LibraryItem = z.infer<typeof LibraryItemSchema>;

export const RatingValueSchema = z.union([z.literal(1), z.literal(-1)]);
export type RatingValue = z.infer<typeof RatingValueSchema>;

/** `PUT /v1/me/ratings/{arxiv_id}`. */
export const RatingRequestSchema = z.object({
  rating: RatingValueSchema.describe("1: more like this; -1: less like this"),
});

/** `PUT /v1/me/follows`: replaces both lists. */
export const FollowsSchema = z.object({
  authors: z
    .array(z.string().min(1).max(FOLLOW_MAX_LENGTH))
    .max(FOLLOWS_MAX)
    .default([])
    .describe("author names as arXiv lists them; a paper by one of them is pinned first"),
  phrases: z
    .array(z.string().min(1).max(FOLLOW_MAX_LENGTH))
    .max(FOLLOWS_MAX)
    .default([])
    .describe(
      "phrases looked for in titles and abstracts; a paper with one is pinned after followed authors",
    ),
});
export type Follows = z.infer<typeof FollowsSchema>;

export const ProfileSchema = z.object({
  version: z
    .int()
    .min(0)
    .describe("counts the profile's changes; the personal model names the one it learned from"),
  updated_at: z.string().nullable(),
  library: z.array(LibraryItemSchema),
  ratings: z.record(z.string(), RatingValueSchema).describe("arXiv id -> 1 or -1"),
  follows: z.object({ authors: z.array(z.string()), phrases: z.array(z.string()) }),
});
export type Profile = z.infer<typeof ProfileSchema>;

export const EMPTY_PROFILE: Profile = {
  version: 0,
  updated_at: null,
  library: [],
  ratings: {},
  follows: { authors: [], phrases: [] },
};

/** The arXiv id path parameter of the rating routes. */
export const RatingPathSchema = z.object({
  arxiv_id: z.string().regex(new RegExp(ARXIV_ID_PATTERN)).describe("e.g. 2401.12345"),
});

/** What a library write did with each item it was given. */
export const LibraryWriteSchema = z.object({
  added: z
    .array(z.object({ key: z.string(), status: z.enum(["ready", "pending"]) }))
    .describe(
      "items now in the library: `ready` when its text is known (its own title, or a screened paper), " +
        "`pending` until the daily job finds its text (among the screened papers, or from the arXiv API)",
    ),
  duplicates: z.array(z.object({ key: z.string(), reason: z.string() })),
  unreadable: z
    .array(z.object({ item: z.string(), reason: z.string() }))
    .describe("`item` names the entry (its position, BibTeX key or text) and `reason` why it was left out"),
  library_size: z.int().min(0),
  library_max: z.int().min(0),
  version: z.int().min(0),
});
export type LibraryWrite = z.infer<typeof LibraryWriteSchema>;

/**
 * Adds `items` to `library` (or replaces it when `replace`), an item whose key is already there being a
 * duplicate: its first reading wins, as in the file it came from.
 */
export function mergeLibrary(
  library: readonly LibraryItem[],
  items: readonly LibraryItem[],
  replace: boolean,
): { library: LibraryItem[]; added: LibraryItem[]; duplicates: LibraryItem[] } {
  const kept = replace ? [] : [...library];
  const keys = new Set(kept.map((item) => item.key));
  const added: LibraryItem[] = [];
  const duplicates: LibraryItem[] = [];
  for (const item of items) {
    if (keys.has(item.key)) {
      duplicates.push(item);
      continue;
    }
    keys.add(item.key);
    kept.push(item);
    added.push(item);
  }
  return { library: kept, added, duplicates };
}

/** A profile's next version, stamped with the time of the change (given: the domain has no clock). */
export function changed(profile: Profile, change: Partial<Profile>, at: string): Profile {
  return {
    version: profile.version + 1,
    updated_at: at,
    library: change.library ?? profile.library,
    ratings: change.ratings ?? profile.ratings,
    follows: change.follows ?? profile.follows,
  };
}

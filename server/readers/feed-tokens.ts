// The capability token of a reader's personal feed (/v1/feeds/for-you/{token}.xml). It is not the API
// key and opens nothing but that feed: a feed reader is given a URL, and a URL ends up in places a key
// must not (the reader's settings, a shared OPML file, a browser's history). Only its hash is stored,
// as keys are; the store finds the key behind it by that hash.
//   reader:{id}:feedtoken   { hash, issued_at }: the key's one token (a new one replaces it)
//   feedtoken:{hash}        { key_id, key_hash }: erased with the reader (reader-store.ts, eraseReader)

import { hash, randomBytes } from "node:crypto";
import { FEED_TOKEN_PATTERN } from "../../pipeline/domain/personal-feed.ts";
import { findKeyById, type KeyRecord } from "../access/key-service.ts";
import { withStoreLock } from "../store/store-lock.ts";
import type { Store } from "../store/types.ts";
import { feedTokenKey, feedTokenLookupKey, readerLockKey } from "./reader-store.ts";

interface FeedTokenRecord {
  hash: string;
  issued_at: string;
}

/** What the lookup by a token's hash finds: the key's id and hash (its record is read by the hash). */
export interface FeedTokenOwner {
  key_id: string;
  key_hash: string;
}

/** `rpf_` and 32 random bytes in base64url: 256 bits, so nothing can be guessed or brute-forced. */
const newFeedToken = (): string => `rpf_${randomBytes(32).toString("base64url")}`;

/** The stored form: a fast hash is enough for 256 random bits. */
export const hashFeedToken = (token: string): string => hash("sha256", token, "hex");

/**
 * Issues the key's feed token, replacing (and so invalidating) any earlier one; null when another change
 * to the reader held the lock too long, "revoked" when the key was revoked meanwhile (nothing is left). Made under the reader's lock, as profile writes and erasure are,
 * so two issues at once cannot both leave a working token, and an erasure cannot leave one behind.
 */
export function issueFeedToken(
  store: Store,
  record: KeyRecord,
  at: string,
): Promise<{ token: string; issued_at: string; replaced: boolean } | "revoked" | null> {
  return withStoreLock(store, readerLockKey(record.id), async () => {
    const old = await store.getItem<FeedTokenRecord>(feedTokenKey(record.id));
    const token = newFeedToken();
    const tokenHash = hashFeedToken(token);
    await store.setItem(feedTokenKey(record.id), {
      hash: tokenHash,
      issued_at: at,
    } satisfies FeedTokenRecord);
    await store.setItem(feedTokenLookupKey(tokenHash), {
      key_id: record.id,
      key_hash: record.hash,
    } satisfies FeedTokenOwner);
    if (old) await store.removeItem(feedTokenLookupKey(old.hash));
    // Revocation erases without this lock (another process may revoke the key while this runs): read
    // after the writes, a revocation already made is seen here and one made later erases them itself.
    if ((await findKeyById(store, record.id))?.revoked_at !== null) {
      await store.removeItem(feedTokenLookupKey(tokenHash));
      await store.removeItem(feedTokenKey(record.id));
      return "revoked" as const;
    }
    return { token, issued_at: at, replaced: old !== null };
  });
}

/** When the key's feed token was issued, for the profile's export; null when it has none. */
export async function feedTokenIssued(store: Store, keyId: string): Promise<{ issued_at: string } | null> {
  const held = await store.getItem<FeedTokenRecord>(feedTokenKey(keyId));
  return held ? { issued_at: held.issued_at } : null;
}

/**
 * The key behind a token, or null. A string that cannot be a token is refused without a store read
 * (its shape is public); every other one is looked up by its hash, so no secret is compared.
 */
export async function feedTokenOwner(store: Store, token: string): Promise<FeedTokenOwner | null> {
  if (!FEED_TOKEN_PATTERN.test(token)) return null;
  return store.getItem<FeedTokenOwner>(feedTokenLookupKey(hashFeedToken(token)));
}

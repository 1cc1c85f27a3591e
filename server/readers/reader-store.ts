// Where a reader's data lives in the store: everything under `reader:{key id}`, so that erasure is one
// removal of that prefix on every driver, and nothing of it sits under another key's name.
//   reader:{id}:profile   the profile (library, ratings, follows), deflated: abstracts are most of it
//   reader:{id}:follows   the follows alone: what a list needs of the profile beside the model
//   reader:{id}:model     the personal model fitted on it (packed, a few kilobytes)
//   reader:{id}:version   the profile's version alone (with its nonce): the one read a ranked request makes
//   reader:{id}:writes:*  the profile-write rate's counters
//   reader:{id}:feedtoken the feed token's hash and when it was issued (./feed-tokens.ts)
//   reader:{id}:for-you:* the key's `for_you` list of each daily.published event, two weeks
//                         (server/webhooks/for-you-lists.ts)
// and one record outside the prefix, since it is found by the token and not by the key:
//   feedtoken:{token hash} the key id behind a feed token, erased with the rest

import { randomBytes } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { ReaderModel } from "../../pipeline/domain/reader-model.ts";
import { EMPTY_PROFILE, type Follows, type Profile } from "../../pipeline/domain/reader-profile.ts";
import type { Store } from "../store/types.ts";

export const readerPrefix = (keyId: string) => `reader:${keyId}`;
const profileKey = (keyId: string) => `${readerPrefix(keyId)}:profile`;
const followsKey = (keyId: string) => `${readerPrefix(keyId)}:follows`;
const modelKey = (keyId: string) => `${readerPrefix(keyId)}:model`;
const versionKey = (keyId: string) => `${readerPrefix(keyId)}:version`;
export const feedTokenKey = (keyId: string) => `${readerPrefix(keyId)}:feedtoken`;
/** Where a key's delivered `for_you` lists are, one per event (webhook-records.ts names each). */
export const forYouListsPrefix = (keyId: string) => `${readerPrefix(keyId)}:for-you`;
/** How long a delivered list is kept: as long as the deliveries that send it. */
export const FOR_YOU_LIST_TTL_SECONDS = 14 * 86_400;
export const feedTokenLookupKey = (tokenHash: string) => `feedtoken:${tokenHash}`;
/** The lock every change to a reader's records (profile, feed token, erasure) is made under. */
export const readerLockKey = (keyId: string) => `readerlock:${keyId}`;

/** The profile as stored: its JSON deflated, in base64 (a profile written before is a plain object). */
interface StoredProfile {
  deflated: string;
}

const NO_FOLLOWS: Follows = { authors: [], phrases: [] };

export async function readProfile(store: Store, keyId: string): Promise<Profile> {
  const stored = await store.getItem<Profile | StoredProfile>(profileKey(keyId));
  if (!stored) return EMPTY_PROFILE;
  if ("deflated" in stored) {
    return JSON.parse(inflateRawSync(Buffer.from(stored.deflated, "base64")).toString("utf8")) as Profile;
  }
  return stored;
}

/** The followed authors and phrases alone (a list reads these and the model, not the library). */
export async function readFollows(store: Store, keyId: string): Promise<Follows> {
  const follows = await store.getItem<Follows>(followsKey(keyId));
  if (follows) return follows;
  // A profile written before the follows had their own record.
  const stored = await store.getItem<Profile | StoredProfile>(profileKey(keyId));
  return stored && !("deflated" in stored) ? stored.follows : NO_FOLLOWS;
}

export async function readModel(store: Store, keyId: string): Promise<ReaderModel | null> {
  return store.getItem<ReaderModel>(modelKey(keyId));
}

/**
 * The version record: the profile's version and a nonce made at its first write after none (erased with
 * it). Versions count up from 1 again after an erasure, so caches key a profile by both: a list or model
 * of an erased profile is never taken for the new one's, in any process. Written before the nonce, the
 * record was the plain number.
 */
interface StoredVersion {
  version: number;
  nonce: string;
}

/** A profile's version and what caches key it by: `tag` never repeats for a key id, erasures included. */
export interface ProfileStamp {
  version: number;
  tag: string;
}

const NO_PROFILE: ProfileStamp = { version: 0, tag: "0" };

function stampOf(stored: number | StoredVersion | null): ProfileStamp {
  if (stored === null) return NO_PROFILE;
  if (typeof stored === "number") return { version: stored, tag: `:${stored}` };
  return { version: stored.version, tag: `${stored.nonce}:${stored.version}` };
}

/** Whether two stamps' tags are of one profile (one nonce): versions of it, with no erasure between. */
export function sameProfile(a: string, b: string): boolean {
  if (a === NO_PROFILE.tag || b === NO_PROFILE.tag) return false;
  return a.slice(0, a.lastIndexOf(":")) === b.slice(0, b.lastIndexOf(":"));
}

/** The stamps of many keys' profiles (version 0 where there is none), in one read of the store. */
export async function readStamps(store: Store, keyIds: readonly string[]): Promise<ProfileStamp[]> {
  return (await store.getItems<number | StoredVersion>(keyIds.map(versionKey))).map(stampOf);
}

/**
 * The follows and model of many keys' profiles, in one read of the store: what their lists need. A
 * profile written before the follows had their own record reads them from the profile, on its own.
 */
export async function readListInputs(
  store: Store,
  keyIds: readonly string[],
): Promise<{ follows: Follows; model: ReaderModel | null }[]> {
  const found = await store.getItems<unknown>(
    keyIds.flatMap((keyId) => [followsKey(keyId), modelKey(keyId)]),
  );
  return Promise.all(
    keyIds.map(async (keyId, index) => ({
      follows: (found[2 * index] as Follows | null) ?? (await readFollows(store, keyId)),
      model: found[2 * index + 1] as ReaderModel | null,
    })),
  );
}

/** The profile's stamp, version 0 when there is none: a cached model of the same stamp is still good. */
export async function readStamp(store: Store, keyId: string): Promise<ProfileStamp> {
  return stampOf(await store.getItem<number | StoredVersion>(versionKey(keyId)));
}

/** Writes the profile and its model, the version last, so a reader of the version finds both. */
export async function writeProfile(
  store: Store,
  keyId: string,
  profile: Profile,
  model: ReaderModel | null,
): Promise<void> {
  const prior = await store.getItem<number | StoredVersion>(versionKey(keyId));
  // The nonce lasts as long as the profile: made at its first write, or when its record predates it.
  const nonce =
    prior !== null && typeof prior === "object" ? prior.nonce : randomBytes(9).toString("base64url");
  const deflated = deflateRawSync(Buffer.from(JSON.stringify(profile), "utf8")).toString("base64");
  await store.setItem(profileKey(keyId), { deflated } satisfies StoredProfile);
  await store.setItem(followsKey(keyId), profile.follows);
  if (model) await store.setItem(modelKey(keyId), model);
  else await store.removeItem(modelKey(keyId));
  await store.setItem(versionKey(keyId), { version: profile.version, nonce } satisfies StoredVersion);
}

/** Erases everything held for the key, the feed token's lookup first; returns how many records went. */
export async function eraseReader(store: Store, keyId: string): Promise<number> {
  const token = await store.getItem<{ hash: string }>(feedTokenKey(keyId));
  if (token) await store.removeItem(feedTokenLookupKey(token.hash));
  return (token ? 1 : 0) + (await store.removeBelow(readerPrefix(keyId)));
}

/**
 * A rotated key keeps its reader's profile: moved to the new key id, then erased under the old one. The
 * day's `for_you` lists move with it, so the deliveries not yet sent still carry them (they are found
 * through the rotation: attempt-delivery.ts); moved, a list is kept two weeks from the move. The feed
 * token is not moved: whoever held the old key could have issued it, so it ends with that key.
 */
export async function moveReader(store: Store, fromId: string, toId: string): Promise<boolean> {
  const found = await store.getItem<unknown>(profileKey(fromId));
  if (found)
    await writeProfile(store, toId, await readProfile(store, fromId), await readModel(store, fromId));
  const lists = await store.getKeys(forYouListsPrefix(fromId));
  const values = await store.getItems<unknown>(lists);
  await Promise.all(
    lists.map((key, index) => {
      const value = values[index];
      const moved = `${forYouListsPrefix(toId)}${key.slice(forYouListsPrefix(fromId).length)}`;
      return value === null
        ? undefined
        : store.setIfAbsent(moved, value, { ttlSeconds: FOR_YOU_LIST_TTL_SECONDS });
    }),
  );
  await eraseReader(store, fromId);
  return found !== null;
}

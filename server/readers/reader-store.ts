// Where a reader's data lives in the store: everything under `reader:{key id}`, so that erasure is one
// removal of that prefix on every driver, and nothing of it sits under another key's name.
//   reader:{id}:profile   the profile (library, ratings, follows)
//   reader:{id}:model     the personal model fitted on it
//   reader:{id}:version   the profile's version alone: the one read a ranked request makes
//   reader:{id}:writes:*  the profile-write rate's counters
//   reader:{id}:feedtoken the feed token's hash and when it was issued (./feed-tokens.ts)
// and one record outside the prefix, since it is found by the token and not by the key:
//   feedtoken:{token hash} the key id behind a feed token, erased with the rest

import type { ReaderModel } from "../../pipeline/domain/reader-model.ts";
import { EMPTY_PROFILE, type Profile } from "../../pipeline/domain/reader-profile.ts";
import type { Store } from "../store/types.ts";

export const readerPrefix = (keyId: string) => `reader:${keyId}`;
const profileKey = (keyId: string) => `${readerPrefix(keyId)}:profile`;
const modelKey = (keyId: string) => `${readerPrefix(keyId)}:model`;
const versionKey = (keyId: string) => `${readerPrefix(keyId)}:version`;
export const feedTokenKey = (keyId: string) => `${readerPrefix(keyId)}:feedtoken`;
export const feedTokenLookupKey = (tokenHash: string) => `feedtoken:${tokenHash}`;
/** The lock every change to a reader's records (profile, feed token, erasure) is made under. */
export const readerLockKey = (keyId: string) => `readerlock:${keyId}`;

export async function readProfile(store: Store, keyId: string): Promise<Profile> {
  return (await store.getItem<Profile>(profileKey(keyId))) ?? EMPTY_PROFILE;
}

export async function readModel(store: Store, keyId: string): Promise<ReaderModel | null> {
  return store.getItem<ReaderModel>(modelKey(keyId));
}

/** The profile's version, 0 when there is none: a cached model of the same version is still good. */
export async function readVersion(store: Store, keyId: string): Promise<number> {
  return (await store.getItem<number>(versionKey(keyId))) ?? 0;
}

/** Writes the profile and its model, the version last, so a reader of the version finds both. */
export async function writeProfile(
  store: Store,
  keyId: string,
  profile: Profile,
  model: ReaderModel | null,
): Promise<void> {
  await store.setItem(profileKey(keyId), profile);
  if (model) await store.setItem(modelKey(keyId), model);
  else await store.removeItem(modelKey(keyId));
  await store.setItem(versionKey(keyId), profile.version);
}

/** Erases everything held for the key, the feed token's lookup first; returns how many records went. */
export async function eraseReader(store: Store, keyId: string): Promise<number> {
  const token = await store.getItem<{ hash: string }>(feedTokenKey(keyId));
  if (token) await store.removeItem(feedTokenLookupKey(token.hash));
  return (token ? 1 : 0) + (await store.removeBelow(readerPrefix(keyId)));
}

/**
 * A rotated key keeps its reader's profile: moved to the new key id, then erased under the old one. The
 * feed token is not moved: whoever held the old key could have issued it, so it ends with that key.
 */
export async function moveReader(store: Store, fromId: string, toId: string): Promise<boolean> {
  const profile = await store.getItem<Profile>(profileKey(fromId));
  if (profile) await writeProfile(store, toId, profile, await readModel(store, fromId));
  await eraseReader(store, fromId);
  return profile !== null;
}

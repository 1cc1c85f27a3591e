// The `for_you` lists of a day's `daily.published` deliveries. They are ranked where the day is
// announced (a server's announcer, or `picks curate`), where the day's screened papers and the
// relevance model are, and stored before the event is recorded, with the recipients they were ranked
// for. The fan-out, in whatever process it runs (the server, its delivery thread, `picks worker`), makes
// the deliveries from that record; each attempt reads its list. So whether a delivery carries its list
// never depends on the process that fans it out.
//
// A list is kept under its reader's prefix (reader-store.ts): erasing the profile, or revoking the key,
// erases it too, and nothing of an erased profile leaves. A delivery whose list is gone by its attempt
// sends the event's body if it was never attempted and its key is active, and is cancelled otherwise,
// so every attempt of a delivery sends the same body (attempt-delivery.ts).

import { randomBytes } from "node:crypto";
import { setTimeout as sleep, setImmediate as yieldToIo } from "node:timers/promises";
import {
  type ForYouDelivered,
  forYouDelivered,
  type RankedForDelivery,
} from "../../pipeline/domain/for-you-delivery.ts";
import { FOR_YOU_LIST_TTL_SECONDS, readStamps, sameProfile } from "../readers/reader-store.ts";
import type { Store } from "../store/types.ts";
import { recipientsOf } from "./fan-out.ts";
import {
  type EventRecord,
  eventKey,
  forYouListKey,
  HISTORY_TTL_SECONDS,
  recipientsKey,
  type WalkedRecipients,
} from "./webhook-records.ts";

/**
 * A day's ranking for each of many keys (the reader service's `rankDays`, their profiles read in one
 * go); null where the day has no papers. `kept`: ranked with the model of the profile's version (not
 * the global order because the refit's lock was not had, nor with a model of another version).
 */
export type DayRanker = (
  keyIds: readonly string[],
  date: string,
) => Promise<((RankedForDelivery & { tag: string; kept: boolean }) | null)[]>;

/** Held by the one process ranking an event's lists; see `rankOnce`. */
const listsLeaseKey = (eventId: string) => `webhook:for-you-lease:${eventId}`;

/** Longer than 10,000 lists take; a holder that died frees it after this. */
const LEASE_SECONDS = 120;
const LEASE_POLL_MS = 200;
/**
 * Lists ranked at once: their profiles' versions, then their follows and models, are each one store
 * read for the chunk, and on SQLite their writes share a commit. Between chunks the event loop takes
 * its I/O: a server ranking 10,000 lists (seconds of CPU) still answers, a chunk's ranking (20-30 ms)
 * at a time.
 */
const CHUNK = 64;

export interface ListsDeps {
  store: Store;
  rankDays: DayRanker;
  /** The API's base url, for the list's `list_url`. */
  apiBase: string;
  /** Where a list that could not be ranked is told of; standard error when not given. */
  log?: (message: string) => void;
}

type Ranked = Awaited<ReturnType<DayRanker>>[number];

const logOf = (deps: ListsDeps) => deps.log ?? ((message: string) => process.stderr.write(`${message}\n`));

/**
 * A chunk's rankings. A profile that cannot be ranked (stored corrupt, or a store error) fails its whole
 * chunk: its keys are then ranked one at a time, and a key that still fails gets no list (its deliveries
 * carry the event's body), so one profile never keeps the day from being published. Logged without the
 * error's message, which can quote the stored profile.
 */
async function rankChunk(deps: ListsDeps, chunk: readonly string[], date: string, eventId: string) {
  try {
    return await deps.rankDays(chunk, date);
  } catch {
    const log = logOf(deps);
    return Promise.all(
      chunk.map(async (owner) => {
        try {
          return (await deps.rankDays([owner], date))[0] ?? null;
        } catch (error) {
          log(
            `webhooks: no for_you list for key ${owner} in ${eventId}: its ranking failed ` +
              `(${(error as Error).name}); its deliveries carry the event's body`,
          );
          return null;
        }
      }),
    );
  }
}

/**
 * Stores the lists of a chunk's keys as ranked. A key without a profile (version 0) gets none: its
 * deliveries keep the event's body. A list not ranked with its profile's own model (`kept` false) is
 * not stored either, as the day's list it is not: its key is returned, to be ranked again. Returns how
 * many lists this call stored, the keys that have one now, and those to rank again.
 */
async function storeLists(
  deps: ListsDeps,
  event: EventRecord,
  date: string,
  chunk: readonly string[],
  rankings: readonly Ranked[],
): Promise<{ written: number; listed: string[]; again: string[] }> {
  const { store } = deps;
  const again = chunk.filter((_, index) => {
    const ranked = rankings[index];
    return ranked && ranked.version > 0 && !ranked.kept;
  });
  // Per key: whether this call stored its list, or found one stored (by an earlier, interrupted pass:
  // written only if absent, so a key never gets two lists); null when it gets none.
  const placed = await Promise.all(
    chunk.map(async (owner, index) => {
      const ranked = rankings[index];
      if (!ranked || ranked.version === 0 || !ranked.kept) return null;
      const list = forYouDelivered(ranked, date, deps.apiBase);
      return store.setIfAbsent(forYouListKey(owner, event.id), list, {
        ttlSeconds: FOR_YOU_LIST_TTL_SECONDS,
      });
    }),
  );
  // Ranked outside the reader's lock: a profile erased (or erased and written anew) since its ranking
  // must not keep the list, stored after the erasure removed its prefix. Read again after storing: an
  // erasure after this read removes the list itself.
  const there = chunk.filter((_, index) => placed[index] !== null);
  const now = there.length > 0 ? await readStamps(store, there) : [];
  let written = 0;
  const listed: string[] = [];
  await Promise.all(
    there.map(async (owner, index) => {
      const stamp = now[index];
      const at = chunk.indexOf(owner);
      const ranked = rankings[at];
      if (stamp && ranked && stamp.version > 0 && sameProfile(stamp.tag, ranked.tag)) {
        if (placed[at]) written += 1;
        listed.push(owner);
        return;
      }
      await store.removeItem(forYouListKey(owner, event.id));
    }),
  );
  return { written, listed, again };
}

/**
 * Ranks and stores the list of every recipient key of `event` that has a profile: a key's endpoints
 * share one list. A list already stored (by an earlier, interrupted pass) is kept, so two passes never
 * give one key two lists. The recipients and the keys with a list are kept for the fan-out
 * (`recipientsKey`). A key whose list was not ranked with its profile's model (the refit's lock
 * held by a write, or a write between the reads of its version and its model) is ranked once more after
 * the others, when that write is over; still not, it gets no list and is logged. Returns how many lists
 * this call stored.
 */
export async function writeForYouLists(deps: ListsDeps, event: EventRecord, date: string): Promise<number> {
  const recipients = await recipientsOf(deps.store, event);
  const owners = [...new Set(recipients.map((endpoint) => endpoint.owner))];
  let written = 0;
  const listed: string[] = [];
  const later: string[] = [];
  for (let start = 0; start < owners.length; start += CHUNK) {
    const chunk = owners.slice(start, start + CHUNK);
    const done = await storeLists(deps, event, date, chunk, await rankChunk(deps, chunk, date, event.id));
    written += done.written;
    listed.push(...done.listed);
    later.push(...done.again);
    await yieldToIo();
  }
  for (let start = 0; start < later.length; start += CHUNK) {
    const chunk = later.slice(start, start + CHUNK);
    const done = await storeLists(deps, event, date, chunk, await rankChunk(deps, chunk, date, event.id));
    written += done.written;
    listed.push(...done.listed);
    for (const owner of done.again) {
      logOf(deps)(
        `webhooks: no for_you list for key ${owner} in ${event.id}: its model could not be had ` +
          "(a write held its profile); its deliveries carry the event's body",
      );
    }
  }
  // Kept for the event's fan-out, which then neither walks the endpoints again nor reads the lists.
  const walked: WalkedRecipients = {
    endpoints: recipients.map((endpoint) => [endpoint.id, endpoint.owner]),
    listed,
  };
  await deps.store.setItem(recipientsKey(event.id), walked, { ttlSeconds: HISTORY_TTL_SECONDS });
  return written;
}

/**
 * Runs `publish` once the event's lists are stored. One process at a time ranks them (a lease in the
 * store): a server and `picks curate` announcing the same day at once would otherwise both rank every
 * list. The others wait until the event is recorded, or the lease is freed (its holder died: one of
 * them ranks what is missing). An event already recorded is published without ranking anything.
 */
export async function rankOnce<T>(
  deps: ListsDeps,
  event: EventRecord,
  date: string,
  publish: () => Promise<T>,
): Promise<T> {
  const { store } = deps;
  const lease = listsLeaseKey(event.id);
  const token = randomBytes(12).toString("hex");
  for (;;) {
    if ((await store.getItem(eventKey(event.id))) !== null) return publish();
    if (await store.setIfAbsent(lease, token, { ttlSeconds: LEASE_SECONDS })) break;
    await sleep(LEASE_POLL_MS);
  }
  try {
    await writeForYouLists(deps, event, date);
    return await publish();
  } finally {
    if ((await store.getItem<string>(lease)) === token) await store.removeItem(lease);
  }
}

/** The stored list of a key's delivery of an event, or null (no profile then, or erased since). */
export function readForYouList(store: Store, key: string): Promise<ForYouDelivered | null> {
  return store.getItem<ForYouDelivered>(key);
}

import type { Store } from "../store/types.ts";
import { type EndpointRecord, endpointKey, ownerKey, ownerPrefix } from "./webhook-records.ts";

const idOf = (key: string): string => key.slice(key.lastIndexOf(":") + 1);

/** How many webhook endpoints key `owner` has. */
export async function endpointCount(store: Store, owner: string): Promise<number> {
  return (await store.getKeys(ownerPrefix(owner))).length;
}

/**
 * Moves every endpoint of key `from` to key `to`, as a key rotation does: the new key lists them and
 * can delete them or rotate their secrets, and the old key, now revoked, holds none. Secrets, health and
 * delivery history stay with the endpoint. Returns how many moved. Running it again after a crash
 * midway moves the rest: each endpoint is written to its new owner before its old index entry goes.
 */
export async function moveEndpoints(store: Store, from: string, to: string): Promise<number> {
  let moved = 0;
  for (const entry of await store.getKeys(ownerPrefix(from))) {
    const id = idOf(entry);
    const record = await store.getItem<EndpointRecord>(endpointKey(id));
    if (record && (record.owner === from || record.owner === to)) {
      await store.setItem(endpointKey(id), { ...record, owner: to });
      await store.setItem(ownerKey(to, id), 1);
      moved += 1;
    }
    await store.removeItem(entry);
  }
  return moved;
}

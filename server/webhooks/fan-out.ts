import { findKeyById } from "../access/key-service.ts";
import type { Store } from "../store/types.ts";
import {
  type DeliveryRecord,
  deliveryIdOf,
  deliveryKey,
  deliveryOfKey,
  ENDPOINT_PREFIX,
  type EndpointHealth,
  type EndpointRecord,
  type EventRecord,
  eventKey,
  HISTORY_TTL_SECONDS,
  healthKey,
  WEBHOOK_QUEUE,
} from "./webhook-records.ts";

/**
 * The endpoints an event goes to: its target, or every enabled endpoint subscribed to its type whose
 * key is not revoked (an endpoint outlives its key in the store, but receives nothing more).
 */
export async function recipientsOf(store: Store, event: EventRecord): Promise<EndpointRecord[]> {
  if (event.target) {
    const target = await store.getItem<EndpointRecord>(`${ENDPOINT_PREFIX}:${event.target}`);
    return target ? [target] : [];
  }
  const keys = await store.getKeys(ENDPOINT_PREFIX);
  const records = await Promise.all(keys.map((key) => store.getItem<EndpointRecord>(key)));
  const subscribed = records.filter(
    (record): record is EndpointRecord =>
      record !== null &&
      (record.events as string[]).includes(event.type) &&
      (event.audience === undefined || event.audience.includes(record.owner)) &&
      Date.parse(record.created_at) <= event.at,
  );
  const owners = [...new Set(subscribed.map((record) => record.owner))];
  const ownerKeys = await Promise.all(owners.map((owner) => findKeyById(store, owner)));
  const active = new Set(owners.filter((_, index) => ownerKeys[index]?.revoked_at === null));
  const health = await Promise.all(
    subscribed.map((record) => store.getItem<EndpointHealth>(healthKey(record.id))),
  );
  return subscribed.filter((record, index) => active.has(record.owner) && !health[index]?.disabled_reason);
}

/**
 * Makes one delivery per recipient and queues it. Each delivery's id follows from the endpoint and
 * the event, and its record is written only if absent, so running this again (a crash midway, a
 * second publisher) queues only deliveries still pending, never one already made.
 */
export async function fanOut(store: Store, eventId: string): Promise<number> {
  const event = await store.getItem<EventRecord>(eventKey(eventId));
  if (!event) return 0;
  const queue = store.queue(WEBHOOK_QUEUE);
  const ttl = { ttlSeconds: HISTORY_TTL_SECONDS };
  let queued = 0;
  for (const endpoint of await recipientsOf(store, event)) {
    const id = deliveryIdOf(endpoint.id, event.id);
    const fresh: DeliveryRecord = {
      id,
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: event.type,
      state: "pending",
      attempts: [],
      attempt_count: 0,
      attempt_base: 0,
    };
    const created = await store.setIfAbsent(deliveryKey(id), fresh, ttl);
    if (created) await store.setItem(deliveryOfKey(endpoint.id, id), 1, ttl);
    const state = created ? "pending" : (await store.getItem<DeliveryRecord>(deliveryKey(id)))?.state;
    if (state === "pending" && (await queue.push(`d.${id}`))) queued += 1;
  }
  return queued;
}

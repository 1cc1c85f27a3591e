import { LRUCache } from "lru-cache";
import { type ForYouDelivered, withForYou } from "../../pipeline/domain/for-you-delivery.ts";
import { type DeliveryAttempt, retryDelayMs, shouldDisable } from "../../pipeline/domain/webhook.ts";
import { findKeyById } from "../access/key-service.ts";
import type { DeliveryOutcome } from "../metrics/service-metrics.ts";
import type { HostLookup } from "../outbound/checked-address.ts";
import type { Store } from "../store/types.ts";
import { postChecked } from "./deliver.ts";
import { createSigner, type Signer } from "./signing.ts";
import {
  type DeliveryRecord,
  deliveryKey,
  type EndpointHealth,
  type EndpointRecord,
  type EventRecord,
  endpointKey,
  eventKey,
  forYouListKey,
  HEALTHY,
  HISTORY_TTL_SECONDS,
  healthKey,
  MAX_ROTATIONS,
} from "./webhook-records.ts";
import type { WebhookSettings } from "./webhook-settings.ts";

export interface DeliveryDeps {
  store: Store;
  settings: WebhookSettings;
  lookup: HostLookup;
  now: () => number;
  /** In [0, 1): the jitter of retry waits. */
  random: () => number;
  log: (message: string) => void;
  /** Counts an attempt in the server's metrics (or sends it to the thread that counts it). */
  countDelivery?: (outcome: DeliveryOutcome) => void;
  /** The service's own caches (deliveryCaches()): nothing of one app's deliveries is kept for another's. */
  caches: DeliveryCaches;
}

export interface DeliveryCaches {
  /** Events by id: they never change once recorded, and a fan-out sends one event to every endpoint. */
  events: LRUCache<string, EventRecord>;
  signer: Signer;
}

export const deliveryCaches = (): DeliveryCaches => ({
  events: new LRUCache<string, EventRecord>({ max: 64 }),
  signer: createSigner(),
});

/** The most attempts a delivery keeps for the deliveries list. */
const KEPT_ATTEMPTS = 20;

async function eventOf(
  store: Store,
  events: DeliveryCaches["events"],
  id: string,
): Promise<EventRecord | null> {
  const cached = events.get(id);
  if (cached) return cached;
  const record = await store.getItem<EventRecord>(eventKey(id));
  if (record) events.set(id, record);
  return record;
}

/**
 * The `for_you` list a delivery sends: `stored`, read at the key the fan-out recorded; else, when the
 * key was rotated since (its list moved with its profile, reader-store.ts `moveReader`), the list of the
 * key that replaced it, found from the endpoint's owner (the new key once the endpoints moved, the old
 * one until then). Null when the profile was erased or the key revoked: nothing to follow then.
 */
async function listThroughRotation(
  store: Store,
  delivery: DeliveryRecord,
  endpoint: EndpointRecord | null,
  stored: ForYouDelivered | null,
): Promise<ForYouDelivered | null> {
  if (stored || !delivery.for_you_list || !endpoint) return stored;
  let owner: string | null = endpoint.owner;
  for (let hop = 0; owner !== null && hop <= MAX_ROTATIONS; hop += 1) {
    const key = forYouListKey(owner, delivery.event_id);
    const list = key === delivery.for_you_list ? null : await store.getItem<ForYouDelivered>(key);
    if (list) return list;
    owner = (await findKeyById(store, owner))?.replaced_by ?? null;
  }
  return null;
}

/** Whether the key `owner`, followed through its rotations, is still active. */
async function activeThroughRotation(store: Store, owner: string): Promise<boolean> {
  let id: string | null = owner;
  for (let hop = 0; id !== null && hop <= MAX_ROTATIONS; hop += 1) {
    const record = await findKeyById(store, id);
    if (!record) return false;
    if (record.revoked_at === null) return true;
    id = record.replaced_by;
  }
  return false;
}

/**
 * The delivery as its attempt sends it, or null to cancel it. A list gone since the fan-out went with
 * its profile (erased, or the key revoked; a rotation moves it instead). Once an attempt carried it,
 * the delivery is cancelled: another body under the same webhook-id would differ from the earlier
 * attempts'. Before any attempt, with the key still active (the profile alone erased), it sends the
 * event's body, as to a key without a profile, from then on: erasing a profile does not lose the day.
 */
async function withoutErasedList(
  store: Store,
  delivery: DeliveryRecord,
  endpoint: EndpointRecord,
  list: ForYouDelivered | null,
): Promise<DeliveryRecord | null> {
  if (delivery.for_you_list === undefined || list !== null) return delivery;
  if (delivery.attempt_count > 0 || !(await activeThroughRotation(store, endpoint.owner))) return null;
  const { for_you_list: _gone, ...plain } = delivery;
  return plain;
}

/** What to do with the queue item: done (ack) or try again at `retryAt`. */
export type AttemptResult = { done: true } | { done: false; retryAt: number };

const DONE: AttemptResult = { done: true };

/** The endpoint's health after an attempt: healthy once delivered; failing since the first failure, and
 * disabled once every delivery has failed for the settings' span. */
function healthAfter(
  before: EndpointHealth,
  delivered: boolean,
  started: number,
  now: number,
  settings: DeliveryDeps["settings"],
): { after: EndpointHealth; disabled: boolean } {
  if (delivered) return { after: HEALTHY, disabled: false };
  const since = before.failing_since ?? new Date(started).toISOString();
  const disabled = shouldDisable(Date.parse(since), now, settings.disableAfterMs);
  const days = Math.round((settings.disableAfterMs / 86_400_000) * 10) / 10;
  const reason = disabled
    ? `Disabled at ${new Date(now).toISOString()}: every delivery failed for ${days} days (since ${since}). ` +
      "Fix the endpoint, then send a test event: a delivered test enables it again."
    : before.disabled_reason;
  return { after: { failing_since: since, disabled_reason: reason }, disabled };
}

/**
 * One attempt at one delivery: POST the event's body (with the key's `for_you` list when it has one),
 * signed, record the attempt, and decide whether
 * and when to try again. Sending comes before recording, so a crash in between sends again with the
 * same webhook-id (at-least-once); receivers deduplicate by it.
 */
export async function attemptDelivery(deps: DeliveryDeps, deliveryId: string): Promise<AttemptResult> {
  const { store, settings } = deps;
  const ttl = { ttlSeconds: HISTORY_TTL_SECONDS };
  const found = await store.getItem<DeliveryRecord>(deliveryKey(deliveryId));
  if (found?.state !== "pending") return DONE;
  const [endpoint, event, health, stored] = await Promise.all([
    store.getItem<EndpointRecord>(endpointKey(found.endpoint_id)),
    eventOf(store, deps.caches.events, found.event_id),
    store.getItem<EndpointHealth>(healthKey(found.endpoint_id)),
    found.for_you_list ? store.getItem<ForYouDelivered>(found.for_you_list) : null,
  ]);
  const list = await listThroughRotation(store, found, endpoint, stored);
  const disabled = health?.disabled_reason && found.event_type !== "webhook.test";
  const delivery = endpoint && (await withoutErasedList(store, found, endpoint, list));
  if (!endpoint || !event || disabled || !delivery) {
    await store.setItem(deliveryKey(deliveryId), { ...found, state: "cancelled" }, ttl);
    return DONE;
  }
  // The list's body is made again at each attempt, from the same event body and list: the same bytes.
  const body = list ? withForYou(event.body, list) : event.body;
  const started = deps.now();
  const timestamp = Math.floor(started / 1000);
  const outcome = await postChecked(
    endpoint.url,
    {
      "webhook-id": event.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": deps.caches.signer.signatureFor(endpoint, event.id, timestamp, body, started),
    },
    body,
    {
      timeoutMs: settings.timeoutMs,
      allowLoopback: settings.allowLoopback,
      lookup: deps.lookup,
      userAgent: settings.userAgent,
    },
  );
  const now = deps.now();
  const number = delivery.attempt_count + 1;
  let next = outcome.delivered
    ? null
    : retryDelayMs(number - delivery.attempt_base, settings.retryScheduleMs, deps.random());
  const before = health ?? HEALTHY;
  const { after, disabled: disabledNow } = healthAfter(before, outcome.delivered, started, now, settings);
  if (disabledNow) next = null;
  if (after.failing_since !== before.failing_since || after.disabled_reason !== before.disabled_reason) {
    await store.setItem(healthKey(endpoint.id), after);
  }
  if (outcome.detail)
    deps.log(
      JSON.stringify({ event: "webhook_attempt_failed", delivery_id: deliveryId, detail: outcome.detail }),
    );
  const attempt: DeliveryAttempt = {
    delivery_id: deliveryId,
    event_id: event.id,
    event_type: event.type,
    attempt: number,
    attempted_at: new Date(started).toISOString(),
    status_code: outcome.statusCode,
    error_code: outcome.errorCode,
    duration_ms: Math.max(0, Math.round(now - started)),
    delivered: outcome.delivered,
    next_retry_at: next === null ? null : new Date(now + next).toISOString(),
  };
  const state = outcome.delivered ? "delivered" : next === null ? "failed" : "pending";
  deps.countDelivery?.(state === "pending" ? "retry" : state);
  const attempts = [...delivery.attempts, attempt].slice(-KEPT_ATTEMPTS);
  await store.setItem(deliveryKey(deliveryId), { ...delivery, state, attempts, attempt_count: number }, ttl);
  return next === null ? DONE : { done: false, retryAt: now + next };
}

import type { WebhookEventType } from "../../pipeline/domain/webhook.ts";
import type { Store, WritesWith } from "../store/types.ts";
import { type EventRecord, eventKey, HISTORY_TTL_SECONDS, WEBHOOK_QUEUE } from "./webhook-records.ts";

export interface NewEvent {
  id: string;
  type: WebhookEventType;
  data: Record<string, unknown>;
  /** Only this endpoint receives it (a `webhook.test`); otherwise every subscribed endpoint. */
  target?: string;
  /** Only endpoints of these keys receive it (a firm's `bench.note.ready`). */
  audience?: string[];
}

/**
 * Records an event and queues its fan-out. The event's id is its identity: several servers, or a server
 * and `picks curate`, publishing the same day write the event once (the first body wins, so every
 * attempt and every endpoint gets the same bytes), and the fan-out is idempotent (see fan-out.ts), so a
 * second publication queues at most a second, empty, pass. Returns whether this call recorded the event.
 */
export async function publishEvent(store: Store, event: NewEvent, now: number): Promise<boolean> {
  const record = eventRecordOf(event, now);
  const created = await store.setIfAbsent(eventKey(event.id), record, { ttlSeconds: HISTORY_TTL_SECONDS });
  // Queued even when the record existed: a publisher that crashed between the two steps left it
  // unqueued, and a fan-out pass over deliveries already made makes none again.
  await store.queue(WEBHOOK_QUEUE).push(`e.${event.id}`);
  return created;
}

/** The record `publishEvent` stores: its body serialized once. */
export function eventRecordOf(event: NewEvent, now: number): EventRecord {
  const body = JSON.stringify({ type: event.type, timestamp: new Date(now).toISOString(), data: event.data });
  return {
    id: event.id,
    type: event.type,
    body,
    at: now,
    ...(event.target ? { target: event.target } : {}),
    ...(event.audience ? { audience: event.audience } : {}),
  };
}

/**
 * The writes of `publishEvent`, for a caller that commits them with its own (`setIfAbsentWith`): the
 * event's record and its fan-out, queued at once.
 */
export function eventWrites(event: NewEvent, now: number): WritesWith {
  return {
    records: [{ key: eventKey(event.id), value: eventRecordOf(event, now), ttlSeconds: HISTORY_TTL_SECONDS }],
    pushes: [{ queue: WEBHOOK_QUEUE, id: `e.${event.id}` }],
  };
}

import { createHash } from "node:crypto";
import type {
  DeliveryAttempt,
  SubscribableEvent,
  WebhookEndpoint,
  WebhookEventType,
} from "../../pipeline/domain/webhook.ts";
import { forYouListsPrefix } from "../readers/reader-store.ts";

/** The queue of deliveries: fan-out jobs (`e.<event id>`) and single deliveries (`d.<delivery id>`). */
export const WEBHOOK_QUEUE = "webhooks";

export const ENDPOINT_PREFIX = "webhook:endpoint";
export const endpointKey = (id: string) => `${ENDPOINT_PREFIX}:${id}`;
export const ownerPrefix = (keyId: string) => `webhook:owner:${keyId}`;
export const ownerKey = (keyId: string, id: string) => `${ownerPrefix(keyId)}:${id}`;
/** Held while a key's new webhook is counted against the limit and written (see store-lock.ts). */
export const createLockKey = (keyId: string) => `webhook:creating:${keyId}`;
export const eventKey = (id: string) => `webhook:event:${id}`;
export const deliveryKey = (id: string) => `webhook:delivery:${id}`;
/**
 * A key's `for_you` list for a `daily.published` event (for-you-lists.ts): under the reader's prefix,
 * so that erasing the profile erases it.
 */
export const forYouListKey = (keyId: string, eventId: string) => `${forYouListsPrefix(keyId)}:${eventId}`;
/**
 * The recipients a `daily.published` was found to have when its lists were ranked (for-you-lists.ts):
 * its fan-out makes their deliveries without walking every endpoint again, nor reading the lists.
 */
export const recipientsKey = (eventId: string) => `webhook:recipients:${eventId}`;

/** What `recipientsKey` holds. */
export interface WalkedRecipients {
  /** Each recipient endpoint's id and the key that owned it then. */
  endpoints: [id: string, owner: string][];
  /** The keys whose list was stored, and found to be their profile's after storing. */
  listed: string[];
}

/** Rotations followed from a key to the one that replaced it (each rotation is one). */
export const MAX_ROTATIONS = 8;
export const deliveriesOfPrefix = (endpointId: string) => `webhook:deliveries-of:${endpointId}`;
export const deliveryOfKey = (endpointId: string, id: string) => `${deliveriesOfPrefix(endpointId)}:${id}`;
/** One record per published day announced (or counted as announced); see daily-announcer.ts. */
export const ANNOUNCED_DAYS_PREFIX = "webhook:announced:daily";
export const announcedDayKey = (date: string) => `${ANNOUNCED_DAYS_PREFIX}:${date}`;
/** Set once the days found at the announcer's first start are recorded as announced. */
export const ANNOUNCED_BASELINE_KEY = "webhook:announced-baseline:daily";
/** What an older version kept instead: the newest day announced. Read once, to start from it. */
export const DAILY_WATERMARK_KEY = "webhook:watermark:daily";

/** How a day came to be recorded as announced. */
export interface AnnouncedDay {
  /** `event`: its daily.published was queued; `quiet`: published without one (a backfill); `before`: already there at the first start. */
  how: "event" | "quiet" | "before";
  at: string;
}

/** Deliveries and events are kept two weeks for the deliveries list, then forgotten. */
export const HISTORY_TTL_SECONDS = 14 * 86_400;

/**
 * An endpoint as stored. The secret is kept as is, not hashed like API keys: the server signs every
 * delivery with it, so it must be able to read it back.
 */
export interface EndpointRecord {
  id: string;
  owner: string;
  url: string;
  events: SubscribableEvent[];
  description: string;
  created_at: string;
  secret: string;
  /** The secret before the last rotation, which signs too until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
}

/**
 * How deliveries to an endpoint fare, apart from the endpoint: the worker writes this, the owner's
 * requests write the endpoint, so neither overwrites the other's change (a rotated secret, say).
 */
export interface EndpointHealth {
  failing_since: string | null;
  disabled_reason: string | null;
}

export const HEALTHY: EndpointHealth = { failing_since: null, disabled_reason: null };
export const healthKey = (id: string) => `webhook:health:${id}`;

/** An event as stored: its body is serialized once, so every attempt sends the same bytes. */
export interface EventRecord {
  id: string;
  type: WebhookEventType;
  body: string;
  /** When it was first recorded (epoch ms): endpoints created later do not receive it. */
  at: number;
  /** The one endpoint a `webhook.test` goes to. */
  target?: string;
  /** The keys whose endpoints may receive it (a firm's note); absent: any subscribed endpoint. */
  audience?: string[];
}

export type DeliveryState = "pending" | "delivered" | "failed" | "cancelled";

export interface DeliveryRecord {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: WebhookEventType;
  state: DeliveryState;
  /** The latest attempts, oldest first (a few are kept). */
  attempts: DeliveryAttempt[];
  attempt_count: number;
  /** `attempt_count` at the last manual retry: the retry schedule starts again after it. */
  attempt_base: number;
  /**
   * The key's `for_you` list this delivery adds to the event's body (forYouListKey); absent: the
   * event's body as it is. Read at each attempt, so the body is the same on every one.
   */
  for_you_list?: string;
}

/** The delivery of one event to one endpoint: the same id whichever process fans the event out. */
export const deliveryIdOf = (endpointId: string, eventId: string): string =>
  `dl_${createHash("sha256").update(`${endpointId}\n${eventId}`).digest("hex").slice(0, 24)}`;

export function endpointView(record: EndpointRecord, health: EndpointHealth, now: number): WebhookEndpoint {
  const rotating =
    record.previous_secret_expires_at !== null && Date.parse(record.previous_secret_expires_at) > now;
  return {
    id: record.id,
    url: record.url,
    events: record.events,
    description: record.description,
    status: health.disabled_reason === null ? "enabled" : "disabled",
    disabled_reason: health.disabled_reason,
    created_at: record.created_at,
    failing_since: health.failing_since,
    previous_secret_expires_at: rotating ? record.previous_secret_expires_at : null,
  };
}

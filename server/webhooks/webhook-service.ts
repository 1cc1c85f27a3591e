import { randomBytes } from "node:crypto";
import {
  type DeliveryAttempt,
  MAX_WEBHOOKS_PER_KEY,
  type WebhookCreate,
  type WebhookEndpoint,
} from "../../pipeline/domain/webhook.ts";
import { type HostLookup, resolveChecked, systemLookup } from "../outbound/checked-address.ts";
import { withStoreLock } from "../store/store-lock.ts";
import type { Store } from "../store/types.ts";
import { type DeliveryDeps, deliveryCaches } from "./attempt-delivery.ts";
import { type NewEvent, publishEvent } from "./publish-event.ts";
import { newSecret } from "./signing.ts";
import {
  createLockKey,
  type DeliveryRecord,
  deliveriesOfPrefix,
  deliveryIdOf,
  deliveryKey,
  type EndpointHealth,
  type EndpointRecord,
  endpointKey,
  endpointView,
  HEALTHY,
  HISTORY_TTL_SECONDS,
  healthKey,
  ownerKey,
  ownerPrefix,
  WEBHOOK_QUEUE,
} from "./webhook-records.ts";
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from "./webhook-settings.ts";

/** During a rotation the old secret keeps signing this long, so receivers can switch without a gap. */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export type Created = { ok: true; view: WebhookEndpoint; secret: string } | { ok: false; why: string };

export interface WebhookService {
  readonly deps: DeliveryDeps;
  /** Checks the url's host (public addresses only) and stores a new endpoint with a new secret. */
  create(owner: string, input: WebhookCreate): Promise<Created>;
  list(owner: string): Promise<WebhookEndpoint[]>;
  /** Null for an unknown id and for another key's endpoint alike. */
  get(owner: string, id: string): Promise<WebhookEndpoint | null>;
  remove(owner: string, id: string): Promise<boolean>;
  rotate(owner: string, id: string): Promise<{ view: WebhookEndpoint; secret: string } | null>;
  sendTest(owner: string, id: string): Promise<{ deliveryId: string; eventId: string } | null>;
  attempts(owner: string, id: string): Promise<DeliveryAttempt[] | null>;
  /** Queues a delivery again; null when it is not this endpoint's. */
  retry(owner: string, id: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /** Records an event and queues its fan-out (see publish-event.ts). */
  publish(event: NewEvent): Promise<boolean>;
  /** Calls `listener` after each publication, so a worker in this process starts at once. */
  onQueued(listener: () => void): () => void;
  /** Tells those listeners that an event was queued another way (with a submission's score). */
  queued(): void;
}

export interface WebhookServiceOptions {
  settings?: Partial<WebhookSettings>;
  lookup?: HostLookup;
  random?: () => number;
}

const MAX_ATTEMPTS_LISTED = 50;

export function createWebhookService(
  base: { store: Store; now: () => number; log: (message: string) => void } & Pick<
    DeliveryDeps,
    "countDelivery"
  >,
  options: WebhookServiceOptions = {},
): WebhookService {
  const deps: DeliveryDeps = {
    ...base,
    settings: { ...DEFAULT_WEBHOOK_SETTINGS, ...options.settings },
    lookup: options.lookup ?? systemLookup,
    random: options.random ?? Math.random,
    caches: deliveryCaches(),
  };
  const { store, now } = deps;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };

  const owned = async (owner: string, id: string): Promise<EndpointRecord | null> => {
    if (!/^wh_[0-9a-f]{24}$/.test(id)) return null;
    const record = await store.getItem<EndpointRecord>(endpointKey(id));
    return record && record.owner === owner ? record : null;
  };
  const health = async (id: string) => (await store.getItem<EndpointHealth>(healthKey(id))) ?? HEALTHY;
  const view = async (record: EndpointRecord) => endpointView(record, await health(record.id), now());

  return {
    deps,
    async create(owner, input) {
      const full = async () => (await store.getKeys(ownerPrefix(owner))).length >= MAX_WEBHOOKS_PER_KEY;
      const limit = {
        ok: false,
        why: `limit: a key may have at most ${MAX_WEBHOOKS_PER_KEY} webhooks`,
      } as const;
      if (await full()) return limit;
      const checked = await resolveChecked(new URL(input.url), deps.lookup, deps.settings.allowLoopback);
      if (!checked.ok) return { ok: false, why: checked.failure.reason };
      const record: EndpointRecord = {
        id: `wh_${randomBytes(12).toString("hex")}`,
        owner,
        url: input.url,
        events: [...new Set(input.events)],
        description: input.description,
        created_at: new Date(now()).toISOString(),
        secret: newSecret(),
        previous_secret: null,
        previous_secret_expires_at: null,
      };
      // Counted again and written under the key's lock: counted apart, concurrent creates (in any
      // process on the store) all saw room for one more, and all wrote.
      const made = await withStoreLock(store, createLockKey(owner), async () => {
        if (await full()) return false;
        await store.setItem(endpointKey(record.id), record);
        await store.setItem(ownerKey(owner, record.id), 1);
        return true;
      });
      if (made === null) return { ok: false, why: "busy: other webhooks of this key are being created" };
      if (!made) return limit;
      return { ok: true, view: await view(record), secret: record.secret };
    },
    async list(owner) {
      const keys = await store.getKeys(ownerPrefix(owner));
      const records = await Promise.all(
        keys.map((key) => store.getItem<EndpointRecord>(endpointKey(key.slice(key.lastIndexOf(":") + 1)))),
      );
      const mine = records.filter((record): record is EndpointRecord => record !== null);
      mine.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
      return Promise.all(mine.map(view));
    },
    async get(owner, id) {
      const record = await owned(owner, id);
      return record ? view(record) : null;
    },
    async remove(owner, id) {
      const record = await owned(owner, id);
      if (!record) return false;
      // Pending deliveries find no endpoint and are cancelled by the worker.
      await store.removeItem(endpointKey(id));
      await store.removeItem(ownerKey(owner, id));
      await store.removeItem(healthKey(id));
      return true;
    },
    async rotate(owner, id) {
      const record = await owned(owner, id);
      if (!record) return null;
      const rotated: EndpointRecord = {
        ...record,
        secret: newSecret(),
        previous_secret: record.secret,
        previous_secret_expires_at: new Date(now() + ROTATION_OVERLAP_MS).toISOString(),
      };
      await store.setItem(endpointKey(id), rotated);
      return { view: await view(rotated), secret: rotated.secret };
    },
    async sendTest(owner, id) {
      const record = await owned(owner, id);
      if (!record) return null;
      const eventId = `evt_test_${randomBytes(12).toString("hex")}`;
      const data = { webhook_id: id, note: "A test event sent on request; it needs no action." };
      await publishEvent(store, { id: eventId, type: "webhook.test", data, target: id }, now());
      notify();
      return { deliveryId: deliveryIdOf(id, eventId), eventId };
    },
    async attempts(owner, id) {
      if (!(await owned(owner, id))) return null;
      const keys = await store.getKeys(deliveriesOfPrefix(id));
      const records = await Promise.all(
        keys.map((key) => store.getItem<DeliveryRecord>(deliveryKey(key.slice(key.lastIndexOf(":") + 1)))),
      );
      return records
        .flatMap((record) => record?.attempts ?? [])
        .sort((a, b) =>
          a.attempted_at < b.attempted_at ? 1 : a.attempted_at > b.attempted_at ? -1 : b.attempt - a.attempt,
        )
        .slice(0, MAX_ATTEMPTS_LISTED);
    },
    async retry(owner, id, deliveryId) {
      if (!/^dl_[0-9a-f]{24}$/.test(deliveryId) || !(await owned(owner, id))) return null;
      const record = await store.getItem<DeliveryRecord>(deliveryKey(deliveryId));
      if (!record || record.endpoint_id !== id) return null;
      const again: DeliveryRecord = { ...record, state: "pending", attempt_base: record.attempt_count };
      await store.setItem(deliveryKey(deliveryId), again, { ttlSeconds: HISTORY_TTL_SECONDS });
      await store.queue(WEBHOOK_QUEUE).push(`d.${deliveryId}`);
      notify();
      return again;
    },
    async publish(event) {
      const created = await publishEvent(store, event, now());
      notify();
      return created;
    },
    onQueued(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    queued: notify,
  };
}

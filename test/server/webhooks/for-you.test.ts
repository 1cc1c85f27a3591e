import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FOR_YOU_DELIVERED, ForYouDeliveredSchema } from "../../../pipeline/domain/for-you-delivery.ts";
import type { PersonalPicks } from "../../../pipeline/domain/reader-answers.ts";
import type { ReaderModel } from "../../../pipeline/domain/reader-model.ts";
import type { CompiledRelevance } from "../../../pipeline/domain/relevance-model.ts";
import { dailyEventId, WebhookPayloadSchema } from "../../../pipeline/domain/webhook.ts";
import { loadRelevanceModel, newestModelPath } from "../../../pipeline/relevance-file.ts";
import type { AppContext } from "../../../server/context.ts";
import { createApp } from "../../../server/http/app.ts";
import { createReaderService } from "../../../server/readers/reader-service.ts";
import { publishedScreenedSource } from "../../../server/readers/screened-source.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import type { Store } from "../../../server/store/types.ts";
import { attemptDelivery } from "../../../server/webhooks/attempt-delivery.ts";
import { announcePublishedDay } from "../../../server/webhooks/daily-announcer.ts";
import { fanOut } from "../../../server/webhooks/fan-out.ts";
import { type DayRanker, rankOnce, writeForYouLists } from "../../../server/webhooks/for-you-lists.ts";
import { moveEndpoints } from "../../../server/webhooks/key-endpoints.ts";
import { eventRecordOf } from "../../../server/webhooks/publish-event.ts";
import {
  type DeliveryRecord,
  deliveryIdOf,
  deliveryKey,
  type EventRecord,
  eventKey,
  forYouListKey,
} from "../../../server/webhooks/webhook-records.ts";
import { testContext } from "../../helpers/context.ts";
import { publishRankedSampleDays } from "../../helpers/published.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

// A key's daily.published delivery with its for_you list: ranked where the day is announced, stored
// before the event, and read by a fan-out and attempts that have no reader service (as in the delivery
// thread and `picks worker`). The receiver verifies every request with the `standardwebhooks` package.

const SITE = "https://picks.example.org";
let snapshots: SnapshotCache;
let relevance: CompiledRelevance;
let receiver: Receiver;
// The receiver checks the timestamp against its own clock (5 minutes either way).
let clock = Date.now();

beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishRankedSampleDays()).publicDir });
  relevance = await loadRelevanceModel(await newestModelPath());
  receiver = await startReceiver();
});
afterAll(async () => {
  snapshots.close();
  await receiver.close();
});

async function contextOn(store: Store): Promise<AppContext> {
  return testContext(snapshots, {
    store,
    config: { profileWriteRate: { name: "profile-writes", limit: 1000, windowSeconds: 60 } },
    now: () => clock,
    relevance,
    webhooks: { settings: { allowLoopback: true, retryScheduleMs: [1_000, 1_000] }, random: () => 0.5 },
  });
}

/** A request to a fresh app on `context` with `key`, its JSON body given or none. */
const sendAs = (context: AppContext, key: string) => (method: string, path: string, body?: unknown) =>
  createApp(context).request(path, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe("for_you in daily.published deliveries", () => {
  let context: AppContext;
  let day: string;
  const keys: Record<string, { key: string; owner: string; endpoint: string; path: string }> = {};

  const send = (key: string, method: string, path: string, body?: unknown) =>
    sendAs(context, key)(method, path, body);
  const rankDays: DayRanker = (keyIds, date) => context.readers.rankDays(keyIds, date, 0);
  const deps = () => ({ store: context.store, now: () => clock, siteUrl: SITE, rankDays });

  beforeAll(async () => {
    context = await contextOn(await createMemoryStore());
    day = snapshots.days()[0]?.date as string;
    for (const name of ["reader", "plain", "erased"]) {
      const { key, record } = await context.keys.issue({
        tier: "pro",
        email: `${name}@example.org`,
        label: name,
      });
      const path = `/for-you/${name}`;
      const created = await send(key, "POST", "/v1/webhooks", {
        url: `${receiver.base}${path}`,
        events: ["daily.published"],
      });
      expect(created.status).toBe(201);
      const { id, secret } = (await created.json()) as { id: string; secret: string };
      receiver.secrets.set(path, secret);
      keys[name] = { key, owner: record.id, endpoint: id, path };
    }
    // The reader follows a phrase and keeps three of the day's papers; the erased key follows an author.
    const screened = (await context.readers.rankDay(keys.reader?.owner as string, day, 0))?.papers ?? [];
    const liked = screened.slice(3, 6).map((paper) => paper.arxiv_id);
    expect((await send(keys.reader?.key as string, "PUT", "/v1/me/library", liked)).status).toBe(200);
    expect(
      (await send(keys.reader?.key as string, "PUT", "/v1/me/follows", { phrases: ["agent"] })).status,
    ).toBe(200);
    const author = screened[20]?.authors[0] as string;
    expect(
      (await send(keys.erased?.key as string, "PUT", "/v1/me/follows", { authors: [author] })).status,
    ).toBe(200);
    clock += 1_000;
  });

  it("carries the reader's list, the plain key gets the event's body byte for byte, all signed", async () => {
    const announced = await announcePublishedDay(deps(), await snapshots.readDay(day));
    expect(announced).toBe(true);
    // The fan-out and the attempts use the store alone: no reader service, no model, no snapshots.
    const { store } = context;
    expect(await fanOut(store, dailyEventId(day))).toBe(3);
    const event = (await store.getItem<EventRecord>(eventKey(dailyEventId(day)))) as EventRecord;
    const plain = keys.plain as (typeof keys)["plain"] & {};
    const reader = keys.reader as (typeof keys)["reader"] & {};
    for (const name of ["reader", "plain"]) {
      const id = deliveryIdOf(keys[name]?.endpoint as string, event.id);
      expect(await attemptDelivery(context.webhooks.deps, id)).toEqual({ done: true });
    }
    const [plainGot] = receiver.of(plain.path, "daily.published");
    expect(plainGot?.body).toBe(event.body);
    const [readerGot] = receiver.of(reader.path, "daily.published");
    const payload = WebhookPayloadSchema.parse(JSON.parse(readerGot?.body ?? "{}"));
    const { for_you, ...rest } = payload.data;
    // Apart from for_you, the same data as every other endpoint's.
    expect(rest).toEqual(JSON.parse(event.body).data);
    const list = ForYouDeliveredSchema.parse(for_you);
    expect(list.personal).toBe(true);
    expect(list.list_url).toBe(`${SITE}/v1/me/picks?date=${day}`);
    expect(list.items).toHaveLength(FOR_YOU_DELIVERED);
    // The head of the same list GET /v1/me/picks answers the key.
    const full = (await (await send(reader.key, "GET", `/v1/me/picks?date=${day}`)).json()) as PersonalPicks;
    expect(list.profile_version).toBe(full.profile_version);
    expect(list.items.map((item) => [item.arxiv_id, item.for_you, item.why_for_you.placed_by])).toEqual(
      full.items
        .slice(0, FOR_YOU_DELIVERED)
        .map((item) => [item.arxiv_id, item.for_you, item.why_for_you.placed_by]),
    );
    expect(list.items[0]?.why_for_you.followed_phrase).toBe("agent");
  });

  it("sends the same bytes, signed again, on a retry", async () => {
    const reader = keys.reader as (typeof keys)["reader"] & {};
    const id = deliveryIdOf(reader.endpoint, dailyEventId(day));
    const retried = await context.webhooks.retry(reader.owner, reader.endpoint, id);
    expect(retried?.state).toBe("pending");
    clock += 5_000;
    expect(await attemptDelivery(context.webhooks.deps, id)).toEqual({ done: true });
    const got = receiver.of(reader.path, "daily.published");
    expect(got).toHaveLength(2);
    expect(got[1]?.body).toBe(got[0]?.body);
    expect(got[1]?.headers["webhook-timestamp"]).not.toBe(got[0]?.headers["webhook-timestamp"]);
  });

  it("sends the event's body, without a list, to a key whose profile was erased since the fan-out", async () => {
    const erased = keys.erased as (typeof keys)["erased"] & {};
    const id = deliveryIdOf(erased.endpoint, dailyEventId(day));
    const record = await context.store.getItem<DeliveryRecord>(deliveryKey(id));
    expect(record?.for_you_list).toBe(forYouListKey(erased.owner, dailyEventId(day)));
    expect((await send(erased.key, "DELETE", "/v1/me/profile")).status).toBe(200);
    expect(await context.store.getItem(forYouListKey(erased.owner, dailyEventId(day)))).toBeNull();
    expect(await attemptDelivery(context.webhooks.deps, id)).toEqual({ done: true });
    const after = await context.store.getItem<DeliveryRecord>(deliveryKey(id));
    expect(after?.state).toBe("delivered");
    // From then on the delivery is the event's body: a retry sends the same bytes.
    expect(after?.for_you_list).toBeUndefined();
    const event = (await context.store.getItem<EventRecord>(eventKey(dailyEventId(day)))) as EventRecord;
    const got = receiver.of(erased.path, "daily.published");
    expect(got.map((request) => request.body)).toEqual([event.body]);
  });

  /** A copy of the test's store, and a reader service of its own on it (no list kept from before). */
  const copied = async () => {
    const store = await createMemoryStore();
    for (const key of await context.store.getKeys("")) {
      const value = await context.store.getItem(key);
      if (value !== null) await store.setItem(key, value);
    }
    const readers = createReaderService({
      store,
      now: () => clock,
      screened: publishedScreenedSource(snapshots),
      relevance,
    });
    return { store, readers };
  };

  it("keeps no list of a profile erased between its ranking and its storing", async () => {
    const { store, readers } = await copied();
    const reader = keys.reader?.owner as string;
    const event = eventRecordOf({ id: "evt_daily_erased", type: "daily.published", data: {} }, clock);
    const rankThenErase: DayRanker = async (keyIds, date) => {
      const ranked = await readers.rankDays(keyIds, date, 0);
      expect(ranked.some((list) => list?.version)).toBe(true);
      await readers.erase(reader);
      return ranked;
    };
    expect(await writeForYouLists({ store, rankDays: rankThenErase, apiBase: SITE }, event, day)).toBe(0);
    expect(await store.getItem(forYouListKey(reader, event.id))).toBeNull();
    expect(await store.getKeys(`reader:${reader}`)).toEqual([]);
  });

  /** Stores the reader's model as if fitted on another version of the profile; gives back the real one. */
  const outdated = async (store: Store, reader: string) => {
    const key = `reader:${reader}:model`;
    const model = (await store.getItem<ReaderModel>(key)) ?? expect.fail("the reader has no model");
    await store.setItem(key, { ...model, profile_version: model.profile_version + 1 });
    return () => store.setItem(key, model);
  };

  it("stores no list ranked without its profile's own model: ranked again after the others, then logged", async () => {
    const { store, readers } = await copied();
    const reader = keys.reader?.owner as string;
    // As if a write came between the reads of the profile's version and of its model.
    await outdated(store, reader);
    const event = eventRecordOf({ id: "evt_daily_unkept", type: "daily.published", data: {} }, clock);
    const asked: string[][] = [];
    const logged: string[] = [];
    const rankDays: DayRanker = async (keyIds, date) => {
      asked.push([...keyIds]);
      return readers.rankDays(keyIds, date, 0);
    };
    const deps = { store, rankDays, apiBase: SITE, log: (message: string) => logged.push(message) };
    expect(await writeForYouLists(deps, event, day)).toBe(0);
    expect(await store.getItem(forYouListKey(reader, event.id))).toBeNull();
    // Every recipient once, then the reader alone, once more.
    expect(asked).toHaveLength(2);
    expect(asked[1]).toEqual([reader]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(reader);
  });

  it("stores the list ranked again once the write that held the model is over", async () => {
    const { store, readers } = await copied();
    const reader = keys.reader?.owner as string;
    const restore = await outdated(store, reader);
    const event = eventRecordOf({ id: "evt_daily_again", type: "daily.published", data: {} }, clock);
    let calls = 0;
    const rankDays: DayRanker = async (keyIds, date) => {
      if (calls++ === 1) await restore();
      return readers.rankDays(keyIds, date, 0);
    };
    expect(await writeForYouLists({ store, rankDays, apiBase: SITE }, event, day)).toBe(1);
    const list = await store.getItem<{ personal: boolean; profile_version: number }>(
      forYouListKey(reader, event.id),
    );
    expect(list?.personal).toBe(true);
    // The same list as a pass that found the model in place from the start.
    const { store: plain, readers: fresh } = await copied();
    const direct = { store: plain, rankDays: ((ids, date) => fresh.rankDays(ids, date, 0)) as DayRanker };
    expect(await writeForYouLists({ ...direct, apiBase: SITE }, event, day)).toBe(1);
    expect(await plain.getItem(forYouListKey(reader, event.id))).toEqual(list);
  });

  it("publishes the day when a stored profile is corrupt: that key gets no list, the others theirs", async () => {
    const { store, readers } = await copied();
    const reader = keys.reader?.owner as string;
    const corrupt = keys.plain?.owner as string;
    // A profile whose follows are not a follows record: ranking it throws.
    await store.setItem(`reader:${corrupt}:follows`, "private phrase");
    await store.setItem(`reader:${corrupt}:version`, { version: 1, nonce: "n" });
    const event = eventRecordOf({ id: "evt_daily_corrupt", type: "daily.published", data: {} }, clock);
    const logged: string[] = [];
    const deps = {
      store,
      rankDays: ((keyIds, date) => readers.rankDays(keyIds, date, 0)) as DayRanker,
      apiBase: SITE,
      log: (message: string) => logged.push(message),
    };
    expect(await rankOnce(deps, event, day, async () => "published")).toBe("published");
    expect(await store.getItem(forYouListKey(reader, event.id))).not.toBeNull();
    expect(await store.getItem(forYouListKey(corrupt, event.id))).toBeNull();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(corrupt);
    expect(logged[0]).not.toContain("private phrase");
  });
});

describe("for_you across a key rotation", () => {
  /** A key with a library and an endpoint on a store of its own; `path` is the receiver's. */
  async function profiledKey(path: string) {
    const context = await contextOn(await createMemoryStore());
    const { key, record } = await context.keys.issue({ tier: "pro", email: "r@example.org", label: "r" });
    const send = sendAs(context, key);
    const created = await send("POST", "/v1/webhooks", {
      url: `${receiver.base}${path}`,
      events: ["daily.published"],
    });
    const endpoint = (await created.json()) as { id: string; secret: string };
    receiver.secrets.set(path, endpoint.secret);
    const [first] = snapshots.days().map((entry) => entry.date) as [string];
    const papers = (await context.readers.rankDay(record.id, first, 0))?.papers ?? [];
    const library = papers.slice(3, 6).map((paper) => paper.arxiv_id);
    expect((await send("PUT", "/v1/me/library", library)).status).toBe(200);
    clock += 1_000;
    const rankDays: DayRanker = (keyIds, date) => context.readers.rankDays(keyIds, date, 0);
    const deps = { store: context.store, now: () => clock, siteUrl: SITE, rankDays };
    return { context, store: context.store, record, endpoint: endpoint.id, deps };
  }

  it("sends the rotated key's endpoint its list, rotated after the fan-out or before it", async () => {
    const path = "/for-you/rotated";
    const { context, store, record, endpoint, deps } = await profiledKey(path);
    const [first, second] = snapshots.days().map((entry) => entry.date) as [string, string];
    // The first day is fanned out before the rotation; the second is announced (its list stored) but
    // fanned out after it.
    expect(await announcePublishedDay(deps, await snapshots.readDay(first))).toBe(true);
    expect(await fanOut(store, dailyEventId(first))).toBe(1);
    expect(await announcePublishedDay(deps, await snapshots.readDay(second))).toBe(true);
    const lists = await Promise.all(
      [first, second].map((date) => store.getItem(forYouListKey(record.id, dailyEventId(date)))),
    );
    expect(lists.every((list) => list !== null)).toBe(true);

    // As `picks keys rotate` does: the key, then its endpoints.
    const rotated = (await context.keys.rotate(record.id)) ?? expect.fail("not rotated");
    expect(await moveEndpoints(store, record.id, rotated.record.id)).toBe(1);
    expect(await store.getKeys(`reader:${record.id}`)).toEqual([]);
    expect(await fanOut(store, dailyEventId(second))).toBe(1);

    for (const date of [first, second]) {
      const id = deliveryIdOf(endpoint, dailyEventId(date));
      expect(await attemptDelivery(context.webhooks.deps, id)).toEqual({ done: true });
      expect((await store.getItem<DeliveryRecord>(deliveryKey(id)))?.state).toBe("delivered");
    }
    const got = receiver.of(path, "daily.published");
    expect(got).toHaveLength(2);
    // Each delivery carries the list ranked for the key before its rotation, byte for byte.
    expect(got.map((request) => JSON.parse(request.body).data.for_you)).toEqual(lists);
  });

  it("finds the list through the rotation while the endpoint still names the old key", async () => {
    const path = "/for-you/rotated-unmoved";
    const { context, store, record, endpoint, deps } = await profiledKey(path);
    const [first] = snapshots.days().map((entry) => entry.date) as [string];
    expect(await announcePublishedDay(deps, await snapshots.readDay(first))).toBe(true);
    expect(await fanOut(store, dailyEventId(first))).toBe(1);
    const list = await store.getItem(forYouListKey(record.id, dailyEventId(first)));
    // Rotated, its endpoints not moved yet.
    expect(await context.keys.rotate(record.id)).not.toBeNull();
    const id = deliveryIdOf(endpoint, dailyEventId(first));
    expect(await attemptDelivery(context.webhooks.deps, id)).toEqual({ done: true });
    const [got] = receiver.of(path, "daily.published");
    expect(JSON.parse(got?.body ?? "{}").data.for_you).toEqual(list);
  });

  it("sends the event's body when the rotated key's profile is erased before any attempt", async () => {
    const path = "/for-you/rotated-erased";
    const { context, store, record, endpoint, deps } = await profiledKey(path);
    const [first] = snapshots.days().map((entry) => entry.date) as [string];
    expect(await announcePublishedDay(deps, await snapshots.readDay(first))).toBe(true);
    expect(await fanOut(store, dailyEventId(first))).toBe(1);
    const rotated = (await context.keys.rotate(record.id)) ?? expect.fail("not rotated");
    await moveEndpoints(store, record.id, rotated.record.id);
    await context.readers.erase(rotated.record.id);
    const id = deliveryIdOf(endpoint, dailyEventId(first));
    expect(await attemptDelivery(context.webhooks.deps, id)).toEqual({ done: true });
    expect((await store.getItem<DeliveryRecord>(deliveryKey(id)))?.state).toBe("delivered");
    const body = (await store.getItem<EventRecord>(eventKey(dailyEventId(first))))?.body;
    expect(receiver.of(path, "daily.published").map((got) => got.body)).toEqual([body]);
  });

  it("cancels the delivery once an attempt carried the list, or when the key is revoked", async () => {
    for (const [path, end] of [
      ["/for-you/erased-after-attempt", "erased after an attempt"],
      ["/for-you/revoked", "revoked"],
    ] as const) {
      const { context, store, record, endpoint, deps } = await profiledKey(path);
      const [first] = snapshots.days().map((entry) => entry.date) as [string];
      expect(await announcePublishedDay(deps, await snapshots.readDay(first))).toBe(true);
      expect(await fanOut(store, dailyEventId(first))).toBe(1);
      const id = deliveryIdOf(endpoint, dailyEventId(first));
      if (end === "revoked") expect(await context.keys.revoke(record.id)).not.toBeNull();
      else {
        // As after an attempt that sent the list and failed: another body would differ from it.
        const pending = (await store.getItem<DeliveryRecord>(deliveryKey(id))) as DeliveryRecord;
        await store.setItem(deliveryKey(id), { ...pending, attempt_count: 1 });
        await context.readers.erase(record.id);
      }
      expect(await attemptDelivery(context.webhooks.deps, id)).toEqual({ done: true });
      expect((await store.getItem<DeliveryRecord>(deliveryKey(id)))?.state, end).toBe("cancelled");
      expect(receiver.of(path, "daily.published"), end).toHaveLength(0);
    }
  });
});

describe("the recipients of a daily.published", () => {
  it("are walked once, when its lists are ranked; the fan-out reads neither endpoints nor lists", async () => {
    const context = await contextOn(await createMemoryStore());
    const walks: string[] = [];
    const read: string[] = [];
    // The store as the announcer and the fan-out see it: the walks over every endpoint, the keys read.
    const store = new Proxy(context.store, {
      get(target, name) {
        if (name === "getKeys") {
          return (prefix: string) => {
            if (prefix === "webhook:endpoint") walks.push(prefix);
            return target.getKeys(prefix);
          };
        }
        if (name === "getItem" || name === "getItems") {
          return (keys: string | string[]) => {
            read.push(...(Array.isArray(keys) ? keys : [keys]));
            return name === "getItem" ? target.getItem(keys as string) : target.getItems(keys as string[]);
          };
        }
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const owners: Record<string, { id: string; endpoint: string }> = {};
    for (const name of ["plain", "revoked", "reader", "erased"]) {
      const { key, record } = await context.keys.issue({ tier: "pro", email: `${name}@x.org`, label: name });
      const send = sendAs(context, key);
      const created = await send("POST", "/v1/webhooks", {
        url: `${receiver.base}/walk/${name}`,
        events: ["daily.published"],
      });
      expect(created.status).toBe(201);
      if (name === "reader" || name === "erased") {
        expect((await send("PUT", "/v1/me/follows", { phrases: ["agent"] })).status).toBe(200);
      }
      const { id, secret } = (await created.json()) as { id: string; secret: string };
      receiver.secrets.set(`/walk/${name}`, secret);
      owners[name] = { id: record.id, endpoint: id };
    }
    const of = (name: string) => owners[name] ?? expect.fail(name);
    clock += 1_000;
    const rankDays: DayRanker = (keyIds, date) => context.readers.rankDays(keyIds, date, 0);
    const date = snapshots.days()[0]?.date as string;
    const event = dailyEventId(date);
    const deps = { store, now: () => clock, siteUrl: SITE, rankDays };
    expect(await announcePublishedDay(deps, await snapshots.readDay(date))).toBe(true);
    expect(walks).toHaveLength(1);
    // Between the lists and the fan-out: a key revoked (its endpoint receives nothing, as before), and a
    // profile erased (its delivery is made with the list's name; its attempt finds the list gone with the
    // profile and sends the event's body).
    expect(await context.keys.revoke(of("revoked").id)).not.toBeNull();
    await context.readers.erase(of("erased").id);
    read.length = 0;
    expect(await fanOut(store, event)).toBe(3);
    expect(walks).toHaveLength(1);
    expect(read.filter((key) => key.startsWith("webhook:endpoint:") || key.includes(":for-you:"))).toEqual(
      [],
    );
    const delivery = async (name: string) =>
      store.getItem<DeliveryRecord>(deliveryKey(deliveryIdOf(of(name).endpoint, event)));
    expect(await delivery("revoked")).toBeNull();
    expect((await delivery("plain"))?.for_you_list).toBeUndefined();
    expect((await delivery("reader"))?.for_you_list).toBe(forYouListKey(of("reader").id, event));
    const erased = deliveryIdOf(of("erased").endpoint, event);
    expect(await attemptDelivery(context.webhooks.deps, erased)).toEqual({ done: true });
    expect((await delivery("erased"))?.state).toBe("delivered");
    const body = (await store.getItem<EventRecord>(eventKey(event)))?.body;
    expect(receiver.of("/walk/erased", "daily.published").map((got) => got.body)).toEqual([body]);
    // Without the kept recipients (an event of another type, or recorded before), the fan-out walks.
    await context.store.removeItem(`webhook:recipients:${event}`);
    expect(await fanOut(store, event)).toBe(0);
    expect(walks).toHaveLength(2);
  });
});

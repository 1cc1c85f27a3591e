import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchNote } from "../../../pipeline/domain/bench-note.ts";
import { benchNoteEventId } from "../../../pipeline/domain/webhook.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { type AppContext, createContext } from "../../../server/context.ts";
import { createApp } from "../../../server/http/app.ts";
import type { ResolvedAddress } from "../../../server/outbound/checked-address.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import { attemptDelivery } from "../../../server/webhooks/attempt-delivery.ts";
import { fanOut, recipientsOf } from "../../../server/webhooks/fan-out.ts";
import { announceNote } from "../../../server/webhooks/note-event.ts";
import { deliveryIdOf, type EventRecord, eventKey } from "../../../server/webhooks/webhook-records.ts";
import { publishSampleDays } from "../../helpers/published.ts";
import { publishedRules } from "../../helpers/rubric.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

// The app in-process with an injected resolver: names point at private and metadata addresses without
// any packet leaving loopback, and a clock the test moves for the 5-day rule.

let snapshots: SnapshotCache;
let receiver: Receiver;
const answers = new Map<string, ResolvedAddress[]>();
const lookups: string[] = [];
let clock = Date.parse("2026-11-23T00:00:00Z");

async function contextWith(allowLoopback: boolean): Promise<AppContext> {
  return createContext({
    version: "0.1.0",
    snapshots,
    // The store runs on the test's clock too: a counter or record expires when the service thinks it does.
    store: await createMemoryStore({ clock: () => clock }),
    config: DEFAULT_CONFIG,
    now: () => clock,
    log: () => {},
    submissions: { score: publishedRules },
    webhooks: {
      settings: { allowLoopback, retryScheduleMs: [1_000, 1_000, 1_000], disableAfterMs: 5 * 86_400_000 },
      random: () => 0.5,
      lookup: async (hostname) => {
        lookups.push(hostname);
        const found = answers.get(hostname);
        if (!found) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
        return found;
      },
    },
  });
}

beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
  receiver = await startReceiver();
});
afterAll(async () => {
  snapshots.close();
  await receiver.close();
});

async function paidKey(context: AppContext) {
  const { key, record } = await context.keys.issue({ tier: "pro", email: "a@example.org", label: "t" });
  return { key, owner: record.id };
}

const create = (context: AppContext, key: string, url: string) =>
  createApp(context).request("/v1/webhooks", {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ url, events: ["daily.published"] }),
  });

describe("url checks with an injected resolver", () => {
  it.each([
    ["private.example.test", [{ address: "10.0.0.5", family: 4 }]],
    ["metadata.example.test", [{ address: "169.254.169.254", family: 4 }]],
    [
      "mixed.example.test",
      [
        { address: "93.184.215.14", family: 4 },
        { address: "192.168.1.1", family: 4 },
      ],
    ],
    ["v6.example.test", [{ address: "fd12::1", family: 6 }]],
  ])("refuses %s at creation with a 422 on body.url", async (host, addresses) => {
    answers.set(host, addresses);
    const context = await contextWith(false);
    const { key } = await paidKey(context);
    const answer = await create(context, key, `https://${host}/hook`);
    expect(answer.status).toBe(422);
    const { detail } = (await answer.json()) as { detail: Array<Record<string, unknown>> };
    expect(detail).toHaveLength(1);
    expect(detail[0]).toMatchObject({
      type: "value_error",
      loc: ["body", "url"],
      input: `https://${host}/hook`,
    });
    expect(String(detail[0]?.msg)).not.toContain(String(addresses[0]?.address));
  });

  it("refuses at delivery a name that came to point at the metadata address, and sends nothing", async () => {
    answers.set("rebinds.example.test", [{ address: "93.184.215.14", family: 4 }]);
    const context = await contextWith(false);
    const { key, owner } = await paidKey(context);
    const created = await create(context, key, "http://rebinds.example.test/hook");
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    answers.set("rebinds.example.test", [{ address: "169.254.169.254", family: 4 }]);
    const sent = await context.webhooks.sendTest(owner, id);
    await fanOut(context.store, sent?.eventId ?? "");
    lookups.length = 0;
    const result = await attemptDelivery(context.webhooks.deps, sent?.deliveryId ?? "");
    expect(lookups).toEqual(["rebinds.example.test"]);
    expect(result.done).toBe(false);
    const [attempt] = (await context.webhooks.attempts(owner, id)) ?? [];
    expect(attempt).toMatchObject({ error_code: "url_refused", status_code: null, delivered: false });
  });
});

describe("the 5-day rule", () => {
  it("disables an endpoint failing every attempt for 5 days; a delivered test enables it again", async () => {
    let status = 500;
    receiver.behaviours.set("/down", (_req, res) => res.writeHead(status).end());
    const context = await contextWith(true);
    const { owner } = await paidKey(context);
    const made = await context.webhooks.create(owner, {
      url: `${receiver.base}/down`,
      events: ["daily.published"],
      description: "",
    });
    if (!made.ok) throw new Error(made.why);
    const id = made.view.id;
    const first = await context.webhooks.sendTest(owner, id);
    await fanOut(context.store, first?.eventId ?? "");
    expect(await attemptDelivery(context.webhooks.deps, first?.deliveryId ?? "")).toEqual({
      done: false,
      retryAt: clock + 1_000,
    });
    expect(await context.webhooks.get(owner, id)).toMatchObject({
      status: "enabled",
      failing_since: new Date(clock).toISOString(),
    });
    clock += 5 * 86_400_000 - 1;
    expect((await attemptDelivery(context.webhooks.deps, first?.deliveryId ?? "")).done).toBe(false);
    expect((await context.webhooks.get(owner, id))?.status).toBe("enabled");
    clock += 1;
    expect(await attemptDelivery(context.webhooks.deps, first?.deliveryId ?? "")).toEqual({ done: true });
    const disabled = await context.webhooks.get(owner, id);
    expect(disabled?.status).toBe("disabled");
    expect(disabled?.disabled_reason).toMatch(/every delivery failed for 5 days/);

    status = 200;
    const again = await context.webhooks.sendTest(owner, id);
    await fanOut(context.store, again?.eventId ?? "");
    expect(await attemptDelivery(context.webhooks.deps, again?.deliveryId ?? "")).toEqual({ done: true });
    expect(await context.webhooks.get(owner, id)).toMatchObject({ status: "enabled", failing_since: null });
  });

  it("sends no daily event to a disabled endpoint", async () => {
    const context = await contextWith(true);
    const { owner } = await paidKey(context);
    const made = await context.webhooks.create(owner, {
      url: `${receiver.base}/never`,
      events: ["daily.published"],
      description: "",
    });
    if (!made.ok) throw new Error(made.why);
    await context.store.setItem(`webhook:health:${made.view.id}`, {
      failing_since: "2026-11-01T00:00:00.000Z",
      disabled_reason: "disabled by the test",
    });
    clock += 1_000;
    await context.webhooks.publish({ id: "evt_daily_2026-12-01", type: "daily.published", data: {} });
    expect(await fanOut(context.store, "evt_daily_2026-12-01")).toBe(0);
  });
});

describe("bench.note.ready", () => {
  it("fans out only to the endpoints of the note's firm, once however often the note is built", async () => {
    const context = await contextWith(true);
    const issue = (tier: "bench" | "pro", firm?: string) =>
      context.keys.issue({ tier, email: "n@example.org", label: "note", ...(firm ? { firm } : {}) });
    const keys = [
      await issue("bench", "acme-bank"),
      await issue("bench", "acme-bank"),
      await issue("bench", "other"),
    ];
    keys.push(await issue("pro"));
    const owners: string[] = [];
    for (const [index, { key, record }] of keys.entries()) {
      const answer = await createApp(context).request("/v1/webhooks", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({ url: `${receiver.base}/note-${index}`, events: ["bench.note.ready"] }),
      });
      expect(answer.status).toBe(201);
      owners.push(record.id);
    }
    const note = { firm: "acme-bank", week: "2026-W47", picks: [] } as unknown as BenchNote;
    // A revoked key of the firm is told nothing, though its endpoint still exists.
    await context.keys.revoke(keys[1]?.record.id as string);
    const deps = { store: context.store, keys: context.keys };
    expect(await announceNote(deps, note, clock, "https://picks.example.org/")).toBe(true);
    expect(await announceNote(deps, note, clock, "https://picks.example.org/")).toBe(false);
    const event = await context.store.getItem<EventRecord>(
      eventKey(benchNoteEventId("acme-bank", "2026-W47")),
    );
    expect(JSON.parse(event?.body ?? "{}").data).toEqual({
      firm: "acme-bank",
      week: "2026-W47",
      picks: 0,
      note_url: "https://picks.example.org/v1/bench/notes/2026-W47",
    });
    const recipients = await recipientsOf(context.store, event as EventRecord);
    expect(recipients.map((endpoint) => endpoint.owner)).toEqual([owners[0]]);
  });
});

describe("two apps in one process", () => {
  it("deliver each its own event under an id both use, signed with its own endpoint's secret", async () => {
    const apps = [await contextWith(true), await contextWith(true)];
    const id = "evt_daily_2026-12-02";
    for (const [index, context] of apps.entries()) {
      const path = `/two-apps-${index}`;
      const { owner } = await paidKey(context);
      const made = await context.webhooks.create(owner, {
        url: `${receiver.base}${path}`,
        events: ["daily.published"],
        description: "",
      });
      if (!made.ok) throw new Error(made.why);
      receiver.secrets.set(path, made.secret);
      // An event goes to the endpoints registered before it.
      clock += 1_000;
      await context.webhooks.publish({ id, type: "daily.published", data: { app: index } });
      expect(await fanOut(context.store, id)).toBe(1);
      // One after the other: the second app's delivery comes after the first's has read its event.
      expect(await attemptDelivery(context.webhooks.deps, deliveryIdOf(made.view.id, id))).toEqual({
        done: true,
      });
      const [got] = receiver.received.filter((request) => request.path === path);
      // By hand, as Standard Webhooks signs: the receiver's own check refuses the test clock's timestamps.
      const headers = got?.headers ?? {};
      const expected = createHmac("sha256", Buffer.from(made.secret.slice("whsec_".length), "base64"))
        .update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${got?.body}`)
        .digest("base64");
      expect(headers["webhook-signature"]).toBe(`v1,${expected}`);
      expect(JSON.parse(got?.body ?? "{}").data).toEqual({ app: index });
    }
  });
});

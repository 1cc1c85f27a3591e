import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../../server/store/types.ts";
import { type OpenedStore, useBackends } from "./backends.ts";

const backends = useBackends();

for (const backend of backends) {
  describe.skipIf(backend.skip !== null)(
    `${backend.kind} store contract${backend.skip ? ` (${backend.skip})` : ""}`,
    () => {
      let opened: OpenedStore;
      let store: Store;
      beforeEach(async () => {
        opened = await backend.open();
        store = opened.store;
      });
      afterEach(() => opened.cleanup());

      it("reports its kind", () => {
        expect(store.kind).toBe(backend.kind);
      });

      it("round-trips JSON values, overwrites and removes", async () => {
        expect(await store.getItem("missing")).toBeNull();
        const values: unknown[] = [
          { a: [1, "2", { b: null }] },
          [1, 2],
          "123",
          "true",
          "",
          0,
          42.5,
          false,
          "é ü 字",
        ];
        for (const [index, value] of values.entries()) {
          await store.setItem(`value:${index}`, value);
        }
        for (const [index, value] of values.entries()) {
          expect(await store.getItem(`value:${index}`)).toEqual(value);
        }
        await store.setItem("value:0", { replaced: true });
        expect(await store.getItem("value:0")).toEqual({ replaced: true });
        await store.removeItem("value:0");
        expect(await store.getItem("value:0")).toBeNull();
        await store.removeItem("value:0");
      });

      it("reads many records at once, in the order asked, null where absent", async () => {
        expect(await store.getItems([])).toEqual([]);
        await store.setItem("many:b", { b: [1, "2"] });
        await store.setItem("many:a", "123");
        await store.setItem("many:c", 0);
        expect(await store.getItem("many:a")).toBe("123");
        expect(await store.getItems(["many:c", "missing", "many:a", "many:b", "many:a"])).toEqual([
          0,
          null,
          "123",
          { b: [1, "2"] },
          "123",
        ]);
        const keys = Array.from({ length: 1_500 }, (_, index) => `many:n:${index}`);
        await Promise.all(keys.filter((_, index) => index % 3 === 0).map((key) => store.setItem(key, key)));
        expect(await store.getItems(keys)).toEqual(keys.map((key, index) => (index % 3 === 0 ? key : null)));
        await expect(store.getItems(["many:a", "A"])).rejects.toThrow();
      });

      it("hands out copies, not its own objects", async () => {
        const value = { list: [1] };
        await store.setItem("copy", value);
        value.list.push(2);
        const read = await store.getItem<{ list: number[] }>("copy");
        read?.list.push(3);
        expect(await store.getItem("copy")).toEqual({ list: [1] });
      });

      it("refuses keys that are not lowercase segments, reserved keys and non-JSON values", async () => {
        const bad = [
          "",
          "A",
          "a/b",
          "a?b",
          "a b",
          "..",
          "a:..",
          "a:.b",
          "a::b",
          ":a",
          "a:",
          "_seq:x",
          "é",
          "x".repeat(201),
        ];
        for (const key of bad) {
          await expect(store.setItem(key, 1), key).rejects.toThrow(/Expected a store key/);
          await expect(store.getItem(key), key).rejects.toThrow(/Expected a store key/);
          await expect(store.consume(key, 1, Date.now() + 1000), key).rejects.toThrow(/Expected a store key/);
        }
        await expect(store.setItem("x", undefined)).rejects.toThrow(/Expected a JSON value/);
        await expect(store.setItem("x", () => 1)).rejects.toThrow(/Expected a JSON value/);
        await expect(store.setItem("x", 1, { ttlSeconds: 1.5 })).rejects.toThrow(/ttlSeconds/);
        await expect(store.consume("x", -1, Date.now())).rejects.toThrow(/limit/);
        await expect(store.consume("x", 1, Number.NaN)).rejects.toThrow(/expiresAt/);
      });

      it("lists keys segment-wise below a prefix, sorted, without the store's own keys", async () => {
        for (const key of ["usage:b", "usage:a:c", "usagex:a", "other", "usage"]) {
          await store.setItem(key, 1);
        }
        await store.next("ids");
        await store.queue("jobs").push("x");
        expect(await store.getKeys("usage")).toEqual(["usage:a:c", "usage:b"]);
        expect(await store.getKeys("usage:a")).toEqual(["usage:a:c"]);
        expect(await store.getKeys("nothing")).toEqual([]);
        expect(await store.getKeys("")).toEqual(["other", "usage", "usage:a:c", "usage:b", "usagex:a"]);
      });

      it("removes a key and everything below it, and nothing beside it", async () => {
        await store.setItem("reader:key_a", 1);
        await store.setItem("reader:key_a:profile", { library: ["x"] });
        await store.setItem("reader:key_a:model", { weights: [1] });
        await store.consume("reader:key_a:writes:1", 10, Date.now() + 60_000);
        await store.setItem("reader:key_ab:profile", "kept: a longer key with the same start");
        await store.setItem("reader", "kept: above the prefix");
        expect(await store.removeBelow("reader:key_a")).toBe(4);
        expect(await store.getKeys("reader")).toEqual(["reader:key_ab:profile"]);
        expect(await store.getItem("reader")).toBe("kept: above the prefix");
        expect(await store.removeBelow("reader:key_a")).toBe(0);
        await expect(store.removeBelow("")).rejects.toThrow(/store key/);
      });

      it("expires items after ttlSeconds, also for getKeys and setIfAbsent", async () => {
        await store.setItem("ttl:short", "soon gone", { ttlSeconds: 1 });
        await store.setItem("ttl:long", "stays", { ttlSeconds: 60 });
        expect(await store.setIfAbsent("ttl:nx", 1, { ttlSeconds: 1 })).toBe(true);
        expect(await store.getItem("ttl:short")).toBe("soon gone");
        expect(await store.getKeys("ttl")).toEqual(["ttl:long", "ttl:nx", "ttl:short"]);
        await sleep(1_150);
        expect(await store.getItem("ttl:short")).toBeNull();
        expect(await store.getItem("ttl:long")).toBe("stays");
        expect(await store.getItems(["ttl:short", "ttl:long"])).toEqual([null, "stays"]);
        expect(await store.getKeys("ttl")).toEqual(["ttl:long"]);
        expect(await store.setIfAbsent("ttl:nx", 2)).toBe(true);
        expect(await store.getItem("ttl:nx")).toBe(2);
      });

      it("allows exactly `limit` of 300 concurrent consumes, with counts 1..limit", async () => {
        const expiresAt = Date.now() + 60_000;
        const results = await Promise.all(
          Array.from({ length: 300 }, () => store.consume("quota:k", 100, expiresAt)),
        );
        const allowed = results.filter((result) => result.allowed);
        expect(allowed).toHaveLength(100);
        expect(allowed.map((result) => result.count).sort((a, b) => a - b)).toEqual(range(1, 100));
        expect(results.filter((result) => !result.allowed).every((result) => result.count === 100)).toBe(
          true,
        );
        expect(await store.peek("quota:k")).toBe(100);
        expect(await store.getItem("quota:k")).toBe(100);
      });

      it("consumes an amount all or nothing, exactly under 100 concurrent batches", async () => {
        const expiresAt = Date.now() + 60_000;
        expect(await store.consume("batch:k", 10, expiresAt, 4)).toEqual({ allowed: true, count: 4 });
        expect(await store.consume("batch:k", 10, expiresAt, 7)).toEqual({ allowed: false, count: 4 });
        expect(await store.consume("batch:k", 10, expiresAt, 6)).toEqual({ allowed: true, count: 10 });
        expect(await store.consume("batch:k", 10, expiresAt)).toEqual({ allowed: false, count: 10 });
        expect(await store.consume("batch:big", 3, expiresAt, 4)).toEqual({ allowed: false, count: 0 });
        expect(await store.peek("batch:big")).toBe(0);
        // 100 batches of 3 against 100: exactly 33 fit, and the counter stops at 99, never past 100.
        const results = await Promise.all(
          Array.from({ length: 100 }, () => store.consume("batch:race", 100, expiresAt, 3)),
        );
        const allowed = results.filter((result) => result.allowed);
        expect(allowed).toHaveLength(33);
        expect(allowed.map((result) => result.count).sort((a, b) => a - b)).toEqual(
          range(1, 33).map((n) => n * 3),
        );
        expect(await store.peek("batch:race")).toBe(99);
        await expect(store.consume("batch:k", 10, expiresAt, 0)).rejects.toThrow(/amount/);
      });

      it("answers a turn's consumes of counters exactly as one at a time, in the order asked", async () => {
        let run = 0;
        const ask = fc.record({
          key: fc.constantFrom("a", "b"),
          amount: fc.integer({ min: 1, max: 4 }),
          // Now and then another limit for the same counter (a tier changed within the turn).
          raised: fc.integer({ min: 0, max: 5 }).map((n) => (n === 0 ? 1 : 0)),
        });
        await fc.assert(
          fc.asyncProperty(
            fc.array(ask, { maxLength: 40 }),
            fc.integer({ min: 0, max: 30 }),
            async (asks, limit) => {
              run += 1;
              const expiresAt = Date.now() + 60_000;
              const joined = await Promise.all(
                asks.map(({ key, amount, raised }) =>
                  store.consume(`turn:r${run}${key}`, limit + raised, expiresAt, amount),
                ),
              );
              const counts = new Map<string, number>();
              const alone = asks.map(({ key, amount, raised }) => {
                const count = counts.get(key) ?? 0;
                if (count + amount > limit + raised) return { allowed: false, count };
                counts.set(key, count + amount);
                return { allowed: true, count: count + amount };
              });
              expect(joined).toEqual(alone);
            },
          ),
          { numRuns: 40 },
        );
      });

      it("answers a consume asked before close", async () => {
        const asked = store.consume("closing:k", 5, Date.now() + 60_000, 2);
        await store.close();
        expect(await asked).toEqual({ allowed: true, count: 2 });
      });

      it("starts an expired counter again at the amount consumed", async () => {
        const expiresAt = Date.now() + 400;
        expect(await store.consume("batchwin:k", 5, expiresAt, 5)).toEqual({ allowed: true, count: 5 });
        await sleep(Math.max(0, expiresAt - Date.now()) + 100);
        expect(await store.consume("batchwin:k", 5, Date.now() + 60_000, 6)).toEqual({
          allowed: false,
          count: 0,
        });
        expect(await store.consume("batchwin:k", 5, Date.now() + 60_000, 2)).toEqual({
          allowed: true,
          count: 2,
        });
      });

      it("keeps counters apart and reads absent ones as 0", async () => {
        const expiresAt = Date.now() + 60_000;
        expect(await store.peek("quota:none")).toBe(0);
        expect(await store.consume("quota:zero", 0, expiresAt)).toEqual({ allowed: false, count: 0 });
        await store.consume("quota:a", 5, expiresAt);
        await store.consume("quota:a", 5, expiresAt);
        await store.consume("quota:b", 5, expiresAt);
        expect([await store.peek("quota:a"), await store.peek("quota:b")]).toEqual([2, 1]);
        await store.setItem("not-a-counter", { a: 1 });
        await expect(store.peek("not-a-counter")).rejects.toThrow(/hold a counter/);
      });

      it("restarts a counter after its window's expiresAt", async () => {
        const expiresAt = Date.now() + 400;
        expect(await store.consume("window:k", 2, expiresAt)).toEqual({ allowed: true, count: 1 });
        expect(await store.consume("window:k", 2, expiresAt + 5_000)).toEqual({ allowed: true, count: 2 });
        expect(await store.consume("window:k", 2, expiresAt)).toEqual({ allowed: false, count: 2 });
        await sleep(Math.max(0, expiresAt - Date.now()) + 100);
        expect(await store.peek("window:k")).toBe(0);
        expect(await store.consume("window:k", 2, Date.now() + 60_000)).toEqual({ allowed: true, count: 1 });
      });

      it("lets exactly one of 50 concurrent setIfAbsent calls win", async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.setIfAbsent("once", { by: i })),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.getItem("once")).toEqual({ by: results.indexOf(true) });
        expect(await store.setIfAbsent("once", "again")).toBe(false);
      });

      it("numbers 200 concurrent next() calls 1..200, per sequence", async () => {
        const values = await Promise.all(Array.from({ length: 200 }, () => store.next("submissions")));
        expect([...values].sort((a, b) => a - b)).toEqual(range(1, 200));
        expect(await store.next("submissions")).toBe(201);
        expect(await store.next("other")).toBe(1);
      });

      it("queues FIFO and refuses ids already queued or in flight", async () => {
        const queue = store.queue("jobs");
        for (const id of ["a", "b", "c"]) {
          expect(await queue.push(id)).toBe(true);
        }
        expect(await queue.push("b")).toBe(false);
        const first = await queue.claim(60_000);
        expect(first?.id).toBe("a");
        expect(await queue.push("a")).toBe(false);
        expect(await queue.size()).toEqual({ pending: 2, inFlight: 1 });
        expect((await queue.claim(60_000))?.id).toBe("b");
        expect((await queue.claim(60_000))?.id).toBe("c");
        expect(await queue.claim(60_000)).toBeNull();
        if (!first) {
          throw new Error("expected a claim");
        }
        expect(await queue.ack({ ...first, token: "forged" })).toBe(false);
        expect(await queue.ack(first)).toBe(true);
        expect(await queue.ack(first)).toBe(false);
        expect(await queue.size()).toEqual({ pending: 0, inFlight: 2 });
        expect(await queue.push("a")).toBe(true);
        expect(await store.queue("other").size()).toEqual({ pending: 0, inFlight: 0 });
      });

      it("hands each of 50 items to exactly one of 100 concurrent claimers", async () => {
        const queue = store.queue("work");
        const ids = range(1, 50).map((n) => `item-${n}`);
        await Promise.all(ids.map((id) => queue.push(id)));
        const claims = await Promise.all(Array.from({ length: 100 }, () => queue.claim(60_000)));
        const claimed = claims.flatMap((claim) => (claim ? [claim.id] : []));
        expect(claimed).toHaveLength(50);
        expect(new Set(claimed)).toEqual(new Set(ids));
        expect(await queue.size()).toEqual({ pending: 0, inFlight: 50 });
      });

      it("requeues items whose lease passed, and the old claim loses its lease", async () => {
        const queue = store.queue("leases");
        await queue.push("x");
        await queue.push("y");
        const first = await queue.claim(150);
        const kept = await queue.claim(60_000);
        expect(await queue.requeueExpired()).toEqual([]);
        await sleep(250);
        expect(await queue.requeueExpired()).toEqual(["x"]);
        expect(await queue.size()).toEqual({ pending: 1, inFlight: 1 });
        const second = await queue.claim(60_000);
        expect(second?.id).toBe("x");
        expect(second?.token).not.toBe(first?.token);
        if (!first || !second || !kept) {
          throw new Error("expected claims");
        }
        expect(await queue.ack(first)).toBe(false);
        expect(await queue.extend(first, 1_000)).toBeNull();
        const extended = await queue.extend(second, 120_000);
        expect(extended?.leaseUntil).toBeGreaterThan(second.leaseUntil);
        expect(await queue.ack(second)).toBe(true);
        expect(await queue.ack(kept)).toBe(true);
        expect(await queue.size()).toEqual({ pending: 0, inFlight: 0 });
      });

      it("holds back ids pushed with notBefore, and deferred claims, until they come due", async () => {
        const queue = store.queue("retries");
        expect(await queue.push("later", { notBefore: Date.now() + 300 })).toBe(true);
        expect(await queue.push("later", { notBefore: Date.now() + 60_000 })).toBe(false);
        expect(await queue.push("now")).toBe(true);
        expect(await queue.size()).toEqual({ pending: 2, inFlight: 0 });
        const now = await queue.claim(60_000);
        expect(now?.id).toBe("now");
        expect(await queue.claim(60_000)).toBeNull();
        await sleep(400);
        const later = await queue.claim(60_000);
        expect(later?.id).toBe("later");
        if (!now || !later) {
          throw new Error("expected claims");
        }
        expect(await queue.defer({ ...now, token: "forged" }, Date.now() + 300)).toBe(false);
        expect(await queue.defer(now, Date.now() + 300)).toBe(true);
        expect(await queue.defer(now, Date.now() + 300)).toBe(false);
        expect(await queue.ack(now)).toBe(false);
        expect(await queue.push("now", { notBefore: Date.now() + 60_000 })).toBe(false);
        expect(await queue.size()).toEqual({ pending: 1, inFlight: 1 });
        expect(await queue.claim(60_000)).toBeNull();
        await sleep(400);
        const again = await queue.claim(60_000);
        expect(again?.id).toBe("now");
        expect(again?.token).not.toBe(now.token);
        if (!again) {
          throw new Error("expected a claim");
        }
        expect(await queue.ack(again)).toBe(true);
        expect(await queue.ack(later)).toBe(true);
        expect(await queue.size()).toEqual({ pending: 0, inFlight: 0 });
      });

      it("brings a delayed id forward when it is pushed for now, to the tail, and only then", async () => {
        const queue = store.queue("manual");
        const minutes = Date.now() + 240_000;
        expect(await queue.push("retry", { notBefore: minutes })).toBe(true);
        expect(await queue.push("first")).toBe(true);
        expect(await queue.push("retry", { notBefore: minutes + 60_000 })).toBe(false);
        expect(await queue.push("retry", { notBefore: minutes - 120_000 })).toBe(true);
        expect(await queue.claim(60_000)).toMatchObject({ id: "first" });
        expect(await queue.claim(60_000)).toBeNull();
        expect(await queue.push("retry")).toBe(true);
        expect(await queue.push("retry")).toBe(false);
        expect(await queue.size()).toEqual({ pending: 1, inFlight: 1 });
        const retry = await queue.claim(60_000);
        expect(retry?.id).toBe("retry");
        if (!retry) {
          throw new Error("expected a claim");
        }
        // In flight: a push neither duplicates it nor takes it from its worker.
        expect(await queue.push("retry")).toBe(false);
        expect(await queue.defer(retry, minutes)).toBe(true);
        expect(await queue.push("retry")).toBe(true);
        expect((await queue.claim(60_000))?.id).toBe("retry");
        expect(await queue.size()).toEqual({ pending: 0, inFlight: 2 });
      });

      it("writes records and queue pushes with a claim, all or none, once of 20 concurrent calls", async () => {
        const queue = store.queue("events");
        await store.setItem("event:kept", { first: true });
        expect(await queue.push("e.late", { notBefore: Date.now() + 240_000 })).toBe(true);
        const also = {
          records: [
            { key: "event:new", value: { n: 1 }, ttlSeconds: 60 },
            { key: "event:kept", value: { first: false } },
          ],
          pushes: [
            { queue: "events", id: "e.new" },
            { queue: "events", id: "e.late" },
          ],
        };
        const won = await Promise.all(
          Array.from({ length: 20 }, (_, n) => store.setIfAbsentWith("result:1", { n }, also)),
        );
        expect(won.filter(Boolean)).toHaveLength(1);
        expect(await store.getItem("result:1")).toEqual({ n: won.indexOf(true) });
        expect(await store.getItem("event:new")).toEqual({ n: 1 });
        expect(await store.getItem("event:kept")).toEqual({ first: true });
        expect(await queue.size()).toEqual({ pending: 2, inFlight: 0 });
        expect((await queue.claim(60_000))?.id).toBe("e.new");
        expect((await queue.claim(60_000))?.id).toBe("e.late");
        expect(await queue.claim(60_000)).toBeNull();
        // Refused before anything is written: a bad key among the records is a bug, not half a write.
        await expect(
          store.setIfAbsentWith("result:2", 1, { records: [{ key: "Bad Key", value: 1 }] }),
        ).rejects.toThrow(/store key/);
        expect(await store.getItem("result:2")).toBeNull();
        expect(await store.setIfAbsentWith("result:3", 1, {}, { ttlSeconds: 1 })).toBe(true);
        await sleep(1_100);
        expect(await store.setIfAbsentWith("result:3", 2, {})).toBe(true);
        expect(await store.getItem("result:3")).toBe(2);
      });

      it("answers ping, and refuses work once closed", async () => {
        expect(await store.ping()).toBe(true);
        await store.close();
        expect(await store.ping()).toBe(false);
        await expect(store.getItem("x")).rejects.toThrow(/closed/);
        await expect(store.consume("x", 1, Date.now() + 1000)).rejects.toThrow(/closed/);
        await store.close();
      });
    },
  );
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

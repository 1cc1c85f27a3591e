import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createKeyedLock, withLock } from "../../server/store/with-lock.ts";
import { createWriteCoalescer } from "../../server/store/write-coalescer.ts";

describe("withLock", () => {
  it("runs calls for one key one at a time, in call order, and other keys alongside", async () => {
    const lock = createKeyedLock();
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (n: number) => async () => {
      running++;
      most = Math.max(most, running);
      await sleep(2);
      order.push(n);
      running--;
      return n;
    };
    const results = await Promise.all(Array.from({ length: 20 }, (_, n) => lock("k", task(n))));
    expect(results).toEqual(order);
    expect(order).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(most).toBe(1);

    running = 0;
    most = 0;
    await Promise.all(["a", "b", "c"].map((key, n) => lock(key, task(n))));
    expect(most).toBe(3);
  });

  it("keeps the chain going after a failure, which only its caller sees", async () => {
    const failing = withLock("shared", () => Promise.reject(new Error("boom")));
    const after = withLock("shared", () => "ok");
    await expect(failing).rejects.toThrow("boom");
    await expect(after).resolves.toBe("ok");
  });

  it("makes a read-modify-write over an async store exact", async () => {
    const lock = createKeyedLock();
    let value = 0;
    const increment = () =>
      lock("counter", async () => {
        const read = value;
        await sleep(0);
        value = read + 1;
      });
    await Promise.all(Array.from({ length: 100 }, increment));
    expect(value).toBe(100);
  });
});

describe("write coalescer", () => {
  it("runs one write per key at a time and merges the requests made meanwhile into one", async () => {
    const state = new Map<string, number>();
    const written: number[] = [];
    let running = 0;
    let most = 0;
    const coalescer = createWriteCoalescer(async (key) => {
      running++;
      most = Math.max(most, running);
      const snapshot = state.get(key) ?? 0;
      await sleep(5);
      written.push(snapshot);
      running--;
    });
    const requests: Promise<void>[] = [];
    for (let n = 1; n <= 100; n++) {
      state.set("k", n);
      const request = coalescer.request("k");
      // Each caller's change must be written when its promise resolves.
      requests.push(request.then(() => expect(Math.max(...written)).toBeGreaterThanOrEqual(n)));
    }
    await Promise.all(requests);
    expect(written).toEqual([1, 100]);
    expect(most).toBe(1);
    expect(coalescer.pending("k")).toBeUndefined();
  });

  it("reports a failed write to its callers and keeps serving the key", async () => {
    let fail = true;
    const coalescer = createWriteCoalescer(async () => {
      await sleep(1);
      if (fail) {
        fail = false;
        throw new Error("disk full");
      }
    });
    const first = coalescer.request("k");
    const second = coalescer.request("k");
    await expect(first).rejects.toThrow("disk full");
    await expect(second).resolves.toBeUndefined();
    await coalescer.drain();
  });
});

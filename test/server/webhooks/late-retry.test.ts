import { afterAll, beforeAll, expect, it } from "vitest";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import type { Store, WorkQueue } from "../../../server/store/types.ts";
import { createDeliveryWorker } from "../../../server/webhooks/delivery-worker.ts";
import { WEBHOOK_QUEUE } from "../../../server/webhooks/webhook-records.ts";
import { createWebhookService } from "../../../server/webhooks/webhook-service.ts";
import { waitFor } from "../submissions/helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

// A manual retry that lands after a failed attempt was recorded but before the worker gave its claim
// back: the push finds the id in flight and is left alone, and the worker must still attempt at once
// rather than at the scheduled retry, minutes away. The store's defer runs the retry first, so the
// window is hit every time instead of now and then under load.

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** The store, with `beforeDefer` run inside the webhook queue's `defer`, before it. */
function withHookedDefer(store: Store, beforeDefer: () => Promise<void>): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property !== "queue") return Reflect.get(target, property, target);
      return (name: string): WorkQueue => {
        const queue = target.queue(name);
        if (name !== WEBHOOK_QUEUE) return queue;
        return new Proxy(queue, {
          get(inner, method) {
            if (method !== "defer") return Reflect.get(inner, method, inner);
            return async (...args: Parameters<WorkQueue["defer"]>) => {
              await beforeDefer();
              return inner.defer(...args);
            };
          },
        });
      };
    },
  });
}

it("attempts a retry asked between a failed attempt's record and its defer at once", async () => {
  let retryOnce: (() => Promise<void>) | null = null;
  const store = withHookedDefer(await createMemoryStore(), async () => {
    const retry = retryOnce;
    retryOnce = null;
    await retry?.();
  });
  const service = createWebhookService(
    { store, now: Date.now, log: () => {} },
    { settings: { allowLoopback: true, retryScheduleMs: [240_000, 240_000, 240_000] }, random: () => 0.5 },
  );
  const worker = createDeliveryWorker(service.deps, service.onQueued);
  receiver.behaviours.set("/late", (_req, res, count) => res.writeHead(count === 1 ? 500 : 200).end());
  const created = await service.create("owner_late", {
    url: `${receiver.base}/late`,
    events: ["daily.published"],
    description: "",
  });
  if (!created.ok) throw new Error(created.why);
  await worker.start();
  try {
    const sent = await service.sendTest("owner_late", created.view.id);
    if (!sent) throw new Error("no test delivery");
    retryOnce = async () => {
      expect(await service.retry("owner_late", created.view.id, sent.deliveryId)).not.toBeNull();
    };
    const attempts = await waitFor(async () => {
      const listed = await service.attempts("owner_late", created.view.id);
      return listed && listed.length >= 2 ? listed : null;
    }, 5_000);
    expect(retryOnce).toBeNull();
    expect(attempts.map((a) => [a.attempt, a.delivered])).toEqual([
      [2, true],
      [1, false],
    ]);
  } finally {
    await worker.stop();
  }
});

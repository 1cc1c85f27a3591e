import { createQueueWorker, type QueueWorker } from "../store/queue-worker.ts";
import type { Claim } from "../store/types.ts";
import { attemptDelivery, type DeliveryDeps } from "./attempt-delivery.ts";
import { fanOut } from "./fan-out.ts";
import { type DeliveryRecord, deliveryKey, WEBHOOK_QUEUE } from "./webhook-records.ts";

export type DeliveryWorker = QueueWorker;

/**
 * Claims queued fan-outs and deliveries and works on up to `concurrency` at once. A delivery that
 * failed goes back to the queue with `defer`, due when its retry is; one whose worker died comes back
 * when its lease runs out (on start and at every poll), and is sent again with the same webhook-id.
 */
export function createDeliveryWorker(
  deps: DeliveryDeps,
  onQueued: (listener: () => void) => () => void,
): DeliveryWorker {
  const { store, settings, log } = deps;
  const queue = store.queue(WEBHOOK_QUEUE);

  const work = async (claim: Claim): Promise<void> => {
    try {
      if (claim.id.startsWith("e.")) {
        await fanOut(store, claim.id.slice(2));
        await queue.ack(claim);
        return;
      }
      const deliveryId = claim.id.slice(2);
      const result = await attemptDelivery(deps, deliveryId);
      if (result.done) await queue.ack(claim);
      else await queue.defer(claim, Math.ceil(result.retryAt));
      await honourLateRetry(deliveryId);
    } catch (error) {
      // The item stays in flight; when its lease runs out it is tried again.
      log(`webhook ${claim.id}: ${(error as Error).stack ?? error}`);
    }
  };

  /**
   * A manual retry asked after the attempt was recorded but before its claim was given back found the
   * id in flight, and a push of an id in flight is left alone: without this it would wait for the
   * scheduled retry, minutes away. The retry wrote its record first (attempts since the last retry:
   * none), so once the claim is given back the record says whether one is owed.
   */
  const honourLateRetry = async (deliveryId: string): Promise<void> => {
    const record = await store.getItem<DeliveryRecord>(deliveryKey(deliveryId));
    if (
      record?.state === "pending" &&
      record.attempt_count > 0 &&
      record.attempt_base === record.attempt_count
    )
      await queue.push(`d.${deliveryId}`);
  };

  return createQueueWorker({
    queue,
    concurrency: settings.concurrency,
    leaseMs: settings.leaseMs,
    pollIntervalMs: settings.pollIntervalMs,
    work,
    onQueued,
    // Expired leases are looked for at start and on the poll timer, not after every delivery: each
    // look is a write transaction, and at a thousand deliveries a second they crowded out the server's
    // answers.
    beforeLook: async (polled) => {
      if (polled) await queue.requeueExpired();
    },
    log: (message) => log(`webhook worker: ${message}`),
  });
}

import pLimit from "p-limit";
import type { Claim } from "../store/types.ts";
import { attemptDelivery, type DeliveryDeps } from "./attempt-delivery.ts";
import { fanOut } from "./fan-out.ts";
import { WEBHOOK_QUEUE } from "./webhook-records.ts";

export interface DeliveryWorker {
  /** Recovers what a crash left in flight, then works until stopped. */
  start(): Promise<void>;
  /** Looks for work now instead of at the next poll. */
  wake(): void;
  /** Takes no new work and resolves once the attempts in hand are finished. */
  stop(): Promise<void>;
}

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
  const limit = pLimit(settings.concurrency);
  const working = new Set<Promise<void>>();
  let stopping = false;
  let pumping = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe = () => {};

  const work = async (claim: Claim): Promise<void> => {
    try {
      if (claim.id.startsWith("e.")) {
        await fanOut(store, claim.id.slice(2));
        await queue.ack(claim);
        return;
      }
      const result = await attemptDelivery(deps, claim.id.slice(2));
      if (result.done) await queue.ack(claim);
      else await queue.defer(claim, Math.ceil(result.retryAt));
    } catch (error) {
      // The item stays in flight; when its lease runs out it is tried again.
      log(`webhook ${claim.id}: ${(error as Error).stack ?? error}`);
    }
  };

  // Expired leases are looked for at start and on the poll timer, not after every delivery: each look
  // is a write transaction, and at a thousand deliveries a second they crowded out the server's answers.
  const pump = async (recover = false): Promise<void> => {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      if (recover) await queue.requeueExpired();
      do {
        again = false;
        while (!stopping && limit.activeCount + limit.pendingCount < settings.concurrency) {
          const claim = await queue.claim(settings.leaseMs);
          if (!claim) break;
          const job: Promise<void> = limit(() => work(claim)).finally(() => {
            working.delete(job);
            if (!stopping) void pump();
          });
          working.add(job);
        }
      } while (again && !stopping);
    } catch (error) {
      log(`webhook worker: ${(error as Error).message}`);
    } finally {
      pumping = false;
    }
  };

  return {
    async start() {
      stopping = false;
      unsubscribe = onQueued(() => void pump());
      timer = setInterval(() => void pump(true), settings.pollIntervalMs);
      await pump(true);
    },
    wake: () => void pump(),
    async stop() {
      stopping = true;
      unsubscribe();
      clearInterval(timer);
      while (working.size > 0 || pumping) {
        await Promise.allSettled([...working]);
        if (pumping) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

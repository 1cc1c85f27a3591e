import pLimit from "p-limit";
import type { Claim, WorkQueue } from "./types.ts";

export interface QueueWorker {
  /** Runs `onStart`, then works until stopped. */
  start(): Promise<void>;
  /** Looks for work now instead of at the next poll. */
  wake(): void;
  /** Takes no new work and resolves once the work in hand is finished. */
  stop(): Promise<void>;
}

export interface QueueWorkerOptions {
  queue: WorkQueue;
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
  /** Works on one claimed id; acknowledges (or defers) it itself, and never throws. */
  work: (claim: Claim) => Promise<void>;
  /** Subscribes to "something was queued in this process"; returns the unsubscribe. */
  onQueued: (listener: () => void) => () => void;
  /** Before each look for work; `polled` is true at start and on the poll timer. */
  beforeLook?: (polled: boolean) => Promise<void>;
  onStart?: () => Promise<void>;
  /** A failed look for work, as a message (the worker keeps going). */
  log: (message: string) => void;
}

/**
 * Claims ids from a durable queue and works on up to `concurrency` at once: when woken, when this
 * process queues something, and every `pollIntervalMs` (work queued by other processes, and leases
 * that ran out). One look at a time; a wake-up during a look makes it look again.
 */
export function createQueueWorker(options: QueueWorkerOptions): QueueWorker {
  const { queue, work, log } = options;
  const limit = pLimit(options.concurrency);
  const working = new Set<Promise<void>>();
  let stopping = false;
  let pumping = false;
  let again = false;
  let againPolled = false;
  let emptied = true;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe = () => {};

  const pump = async (polled = false): Promise<void> => {
    if (pumping) {
      again = true;
      // A poll arriving during a look is not lost: the next round of the look is a polled one.
      againPolled ||= polled;
      return;
    }
    pumping = true;
    let round = polled;
    try {
      do {
        again = false;
        await options.beforeLook?.(round);
        while (!stopping) {
          const free = options.concurrency - limit.activeCount - limit.pendingCount;
          if (free <= 0) break;
          // Every free slot at once (on SQLite the claims share one commit), unless the last look
          // found the queue empty: then one, so an idle poll stays one claim.
          const claims = await Promise.allSettled(
            Array.from({ length: emptied ? 1 : free }, () => queue.claim(options.leaseMs)),
          );
          emptied = claims.some((claimed) => claimed.status === "fulfilled" && claimed.value === null);
          // What was claimed is worked on even when another claim failed: it holds a lease now.
          for (const claimed of claims) {
            const claim = claimed.status === "fulfilled" ? claimed.value : null;
            if (!claim) continue;
            const job: Promise<void> = limit(() => work(claim)).finally(() => {
              working.delete(job);
              if (!stopping) void pump();
            });
            working.add(job);
          }
          const failed = claims.find((claimed) => claimed.status === "rejected");
          if (failed) throw failed.reason;
          if (emptied) break;
        }
        round = againPolled;
        againPolled = false;
      } while (again && !stopping);
    } catch (error) {
      log((error as Error).message);
    } finally {
      pumping = false;
    }
  };

  return {
    async start() {
      stopping = false;
      await options.onStart?.();
      unsubscribe = options.onQueued(() => void pump());
      timer = setInterval(() => void pump(true), options.pollIntervalMs);
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

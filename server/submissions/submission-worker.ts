import { createQueueWorker, type QueueWorker } from "../store/queue-worker.ts";
import type { Claim, WorkQueue } from "../store/types.ts";
import { processSubmission } from "./process-submission.ts";
import { idOfKey, OPEN_PREFIX, SUBMISSION_QUEUE, type SubmissionDeps } from "./submission-records.ts";
import type { SubmissionService } from "./submission-service.ts";

export type SubmissionWorker = QueueWorker;

class LeaseLost extends Error {
  override name = "LeaseLost";
}

/** Renews a claim's lease a few times per lease while the work runs; aborts the work when it is lost. */
function keepLease(queue: WorkQueue, claim: Claim, leaseMs: number) {
  const controller = new AbortController();
  let held = true;
  const renew = async (): Promise<boolean> => {
    if (held && !(await queue.extend(claim, leaseMs))) {
      held = false;
      controller.abort(new LeaseLost(`lost the lease on submission ${claim.id}`));
    }
    return held;
  };
  const timer = setInterval(() => void renew().catch(() => {}), Math.max(50, Math.floor(leaseMs / 3)));
  return { signal: controller.signal, holds: renew, stop: () => clearInterval(timer) };
}

/**
 * Claims queued submissions and works on up to `concurrency` at once. Crash safety is the queue's: an
 * id is acknowledged only after its outcome is in the store, and ids whose lease ran out (their worker
 * died) are put back, on start and at every poll. Each start of work is counted, so a submission that
 * keeps killing its worker ends as failed instead of looping.
 */
export function createSubmissionWorker(
  service: Pick<SubmissionService, "deps" | "onQueued">,
): SubmissionWorker {
  const deps: SubmissionDeps = service.deps;
  const { store, settings, log } = deps;
  const queue = store.queue(SUBMISSION_QUEUE);
  let lastSweep = 0;

  const work = async (claim: Claim): Promise<void> => {
    const lease = keepLease(queue, claim, settings.leaseMs);
    try {
      const outcome = await processSubmission(deps, Number(claim.id), lease);
      if (outcome !== "lease-lost") await queue.ack(claim);
    } catch (error) {
      // The id stays in flight; when its lease runs out it is tried again (attempts are counted).
      if (!(error instanceof LeaseLost)) log(`submission ${claim.id}: ${(error as Error).stack ?? error}`);
    } finally {
      lease.stop();
    }
  };

  /** Queues the ids of accepted, unfinished submissions that are neither pending nor in flight. */
  const sweep = async () => {
    lastSweep = deps.now();
    for (const key of await store.getKeys(OPEN_PREFIX)) await queue.push(String(idOfKey(key)));
  };

  return createQueueWorker({
    queue,
    concurrency: settings.concurrency,
    leaseMs: settings.leaseMs,
    pollIntervalMs: settings.pollIntervalMs,
    work,
    onQueued: (listener) => service.onQueued(listener),
    beforeLook: async () => {
      await queue.requeueExpired();
      if (deps.now() - lastSweep >= settings.sweepIntervalMs) await sweep();
    },
    onStart: sweep,
    log: (message) => log(`submission worker: ${message}`),
  });
}

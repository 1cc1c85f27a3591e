import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { PROJECT_ROOT } from "./paths.ts";

/** What the serving thread holds of the delivery thread. */
export interface DeliveryThread {
  /** Something was queued here: look at the queue now rather than at the next poll. */
  wake(): void;
  /** Finishes the deliveries in hand and closes the thread's store. */
  stop(): Promise<void>;
}

/** The message the thread sends once its worker runs, and the ones it takes. */
export const THREAD_READY = "ready";
export const THREAD_WAKE = "wake";
export const THREAD_STOP = "stop";

/**
 * Webhook deliveries on a worker thread of the server's process, with its own store connection:
 * `picks worker --deliveries-thread`, run by the same program file (the prebuilt bundle or the
 * sources). On the serving thread, one event to 1,000 endpoints (signing, sending, three or four
 * store writes per attempt) took two thirds of keyed throughput while it was delivered; on a thread
 * of its own, at a lower scheduling priority, it takes what the serving thread leaves.
 */
export function startDeliveryThread(): Promise<DeliveryThread> {
  const worker = new Worker(join(PROJECT_ROOT, "bin", "picks.js"), {
    argv: ["worker", "--deliveries-thread"],
    stdout: false,
    stderr: false,
  });
  return new Promise((resolve, reject) => {
    const failed = (error: unknown) => reject(error);
    const exited = (code: number) =>
      reject(new Error(`Expected the delivery thread to start; it exited with ${code}`));
    worker.once("error", failed);
    worker.once("exit", exited);
    worker.once("message", (message) => {
      if (message !== THREAD_READY) return;
      worker.off("error", failed);
      worker.off("exit", exited);
      worker.on("error", (error) =>
        process.stderr.write(`[webhooks] delivery thread: ${error.stack ?? error}\n`),
      );
      let stopped: Promise<void> | undefined;
      resolve({
        wake: () => worker.postMessage(THREAD_WAKE),
        stop: () => {
          stopped ??= new Promise<void>((done) => {
            worker.once("exit", () => done());
            worker.postMessage(THREAD_STOP);
          });
          return stopped;
        },
      });
    });
  });
}

import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { type DeliveryOutcome, isDeliveryOutcome } from "../server/metrics/service-metrics.ts";
import type { WorkQueue } from "../server/store/types.ts";
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
export function startDeliveryThread(
  countDelivery: (outcome: DeliveryOutcome) => void,
  onExit: () => void = () => {},
): Promise<DeliveryThread> {
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
      // The thread's attempts, counted in this server's registry, the one /metrics reads.
      worker.on("message", (message: { delivery?: unknown } | null) => {
        if (isDeliveryOutcome(message?.delivery)) countDelivery(message.delivery);
      });
      let ended = false;
      worker.once("exit", () => {
        ended = true;
        onExit();
      });
      let stopped: Promise<void> | undefined;
      resolve({
        wake: () => worker.postMessage(THREAD_WAKE),
        stop: () => {
          stopped ??= ended
            ? Promise.resolve()
            : new Promise<void>((done) => {
                worker.once("exit", () => done());
                worker.postMessage(THREAD_STOP);
              });
          return stopped;
        },
      });
    });
  });
}

/** How long the thread stays with nothing queued or in flight before it is stopped. */
const IDLE_STOP_MS = 30_000;

/**
 * The delivery thread, started when there is something to deliver and stopped after IDLE_STOP_MS
 * with nothing queued: a thread is a second V8 heap and a second copy of the program's code, about
 * 40 MB of resident memory that a server without webhooks to send should not carry. This thread
 * looks at the queue's size every `pollIntervalMs` (one read), and is woken at once by what this
 * process queues (`onQueued`) or announces (`wake`).
 */
export function deliverOnDemand(options: {
  queue: WorkQueue;
  pollIntervalMs: number;
  onQueued: (listener: () => void) => () => void;
  log: (message: string) => void;
  countDelivery: (outcome: DeliveryOutcome) => void;
  idleStopMs?: number;
}): DeliveryThread {
  const idleStopMs = options.idleStopMs ?? IDLE_STOP_MS;
  let thread: Promise<DeliveryThread | undefined> | undefined;
  let busyAt = Date.now();
  let stopping = false;
  const running = (): Promise<DeliveryThread | undefined> => {
    if (thread) return thread;
    // A thread that ends on its own (a crash) is started again by the next wake or look.
    const started: Promise<DeliveryThread | undefined> = startDeliveryThread(options.countDelivery, () => {
      if (thread === started) thread = undefined;
    }).catch((error: unknown) => {
      options.log(`[webhooks] the delivery thread did not start: ${(error as Error).stack ?? error}`);
      if (thread === started) thread = undefined;
      return undefined;
    });
    thread = started;
    return started;
  };
  const wake = (): void => {
    if (stopping) return;
    busyAt = Date.now();
    void running().then((started) => started?.wake());
  };
  const look = async (): Promise<void> => {
    const { pending, inFlight } = await options.queue.size();
    if (pending + inFlight > 0) {
      busyAt = Date.now();
      if (!thread) wake();
    } else if (thread && Date.now() - busyAt > idleStopMs) {
      const idle = thread;
      thread = undefined;
      await (await idle)?.stop();
    }
  };
  const timer = setInterval(() => {
    look().catch((error: unknown) => options.log(`[webhooks] queue size: ${(error as Error).message}`));
  }, options.pollIntervalMs);
  timer.unref();
  const unsubscribe = options.onQueued(wake);
  void look().catch(() => {});
  return {
    wake,
    stop: async () => {
      stopping = true;
      clearInterval(timer);
      unsubscribe();
      await (await thread)?.stop();
    },
  };
}

import cluster, { type Worker } from "node:cluster";
import { answerMetricsAsk } from "../server/metrics/cluster-metrics.ts";
import type { Output } from "./output.ts";

// `picks serve --workers N`: N server processes share one port through node:cluster (the primary
// accepts connections and hands them out in turn). They share all state through the store, SQLite
// or Redis, so any of them gives the same answers and counts the same quotas. The primary serves
// nothing itself: it starts the workers, replaces one that crashes, and stops them all on a signal.

const INDEX_VARIABLE = "PICKS_SERVER_INDEX";
const RESTART_DELAY_MS = 1_000;

/** This process's place among the server's workers: 1..N in a cluster, 1 when serving alone. */
export function serverIndex(): number {
  return cluster.isPrimary ? 1 : Number(process.env[INDEX_VARIABLE] ?? 1);
}

export const isClusterWorker = (): boolean => !cluster.isPrimary;

/** A worker tells the primary its address once it listens; the primary announces the cluster. */
export function reportListening(url: string): void {
  process.send?.({ listening: url });
}

/**
 * Runs the primary of a cluster of `count` server processes. A worker that fails before it listens
 * (a bad setting, a port in use) stops the whole cluster with its exit code; one that dies later is
 * started again after a second.
 */
export function runCluster(options: {
  count: number;
  banner: (url: string) => string;
  /** Lines printed after the banner, once every worker listens. */
  notes?: readonly string[];
  out: Output;
}): void {
  const { count, out } = options;
  const listening = new Map<number, string>();
  let stopping = false;

  const fork = (index: number): void => {
    const worker = cluster.fork({ [INDEX_VARIABLE]: String(index) });
    worker.on("message", (message: { listening?: string }) => {
      // A scrape of /metrics that reached this worker: the primary gathers every worker's metrics.
      if (answerMetricsAsk(worker, message)) return;
      if (typeof message?.listening !== "string") return;
      listening.set(index, message.listening);
      if (listening.size === count && !announced) {
        announced = true;
        out.line(`${options.banner(message.listening)} (${count} workers)`);
        out.line(`  try ${message.listening}/v1/daily/latest`);
        for (const note of options.notes ?? []) out.line(note);
      }
    });
    worker.once("exit", (code, signal) => onExit(worker, index, code, signal));
  };
  let announced = false;

  const onExit = (worker: Worker, index: number, code: number | null, signal: string | null): void => {
    if (stopping) return;
    if (!listening.has(index)) {
      process.stderr.write(
        `server worker ${index} exited before it listened (${signal ?? code}); stopping\n`,
      );
      process.exitCode = code || 1;
      stop();
      return;
    }
    process.stderr.write(
      `server worker ${index} (pid ${worker.process.pid}) died (${signal ?? code}); starting it again\n`,
    );
    listening.delete(index);
    setTimeout(() => fork(index), RESTART_DELAY_MS).unref();
  };

  const stop = (): void => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  for (let index = 1; index <= count; index++) fork(index);
}

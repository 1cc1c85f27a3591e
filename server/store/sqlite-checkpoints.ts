import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { SqliteDatabase } from "./sqlite-database.ts";

export interface Checkpointer {
  stop(): Promise<void>;
}

// SQLite's automatic checkpoint runs inside the commit that pushes the WAL past 1,000 pages: on a
// server that is the serving thread, every ~500 group commits (two pages each), for 3-10 ms of page
// copying and fsyncs, more when the disk is busy (`npm run profile` on keyed GET /v1/papers). A
// second connection on a worker thread checkpoints instead; in WAL mode a PASSIVE checkpoint runs
// beside the writer without taking its lock, and the next commit after a complete one starts the WAL
// again from its beginning. Only where the data is copied changes: every commit is as durable as
// before, and counts stay exact (the one writer at a time is still SQLite's).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs });
db.pragma("synchronous = " + (workerData.fsync ? "FULL" : "NORMAL"));
const checkpoint = () => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy past the timeout: the next turn tries again.
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/**
 * Moves `db`'s WAL checkpoints to a worker thread with its own connection to the same file, every
 * 250 ms. Should the worker fail, `db` takes its automatic checkpoints back, so the WAL never
 * grows unbounded.
 */
export function checkpointOffThread(
  db: SqliteDatabase,
  options: { path: string; fsync?: boolean },
): Checkpointer {
  const module = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // It holds one connection and a timer: the smallest heap V8 takes keeps its memory to a few MB.
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    workerData: {
      module,
      path: options.path,
      fsync: options.fsync === true,
      intervalMs: 250,
      // As long as the server's own connection waits for another's write lock (openDatabase).
      busyTimeoutMs: 5_000,
    },
  });
  worker.unref();
  db.pragma("wal_autocheckpoint = 0");
  let stopping = false;
  let exited = false;
  const takeBack = (error?: unknown) => {
    if (stopping || !db.open) return;
    db.pragma("wal_autocheckpoint = 1000");
    if (error)
      console.error("[store] sqlite: the checkpoint thread failed; checkpoints are inline again:", error);
  };
  worker.once("error", takeBack);
  worker.once("exit", () => {
    exited = true;
    takeBack();
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (stopping || exited) return resolve();
        stopping = true;
        // Held open until it has checkpointed and closed: unreferenced, it could not keep a process
        // that has nothing else to do waiting for it.
        worker.ref();
        worker.once("exit", () => resolve());
        worker.postMessage("stop");
      }),
  };
}

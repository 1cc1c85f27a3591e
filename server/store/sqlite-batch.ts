import type { SqliteDatabase } from "./sqlite-database.ts";

export interface WriteBatcher {
  /** Runs `write` in this turn's transaction; resolves with its result once that is committed. */
  write<T>(write: () => T): Promise<T>;
  /** Commits the writes asked for so far now, waiting for the lock if need be (before closing). */
  flush(): void;
}

interface Pending {
  write: () => unknown;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

/** How long a batch waits between tries for a write lock another connection holds. */
const BUSY_RETRY_MS = 1;

const isBusy = (error: unknown): boolean =>
  typeof (error as { code?: unknown })?.code === "string" &&
  (error as { code: string }).code.startsWith("SQLITE_BUSY");

/**
 * Group commit. A commit costs far more than the statement it holds (the WAL write and its locks:
 * about 30 µs here, against 5 µs for an upsert), so the writes asked for in one turn of the event
 * loop, typically one per request of the same poll, share one `BEGIN IMMEDIATE` transaction, run
 * at the end of the turn. Each write is still one statement, atomic and exact across processes; its
 * promise resolves once the shared commit is done, so an answered count is committed. A write that
 * throws fails alone, unless its error rolled back the whole transaction (a full disk, an I/O error,
 * a trigger's RAISE(ROLLBACK)); that, like a commit that fails (the database busy past its timeout),
 * fails the whole batch: every write rejected, none applied.
 *
 * While another connection holds the write lock (a worker, the delivery thread), SQLite's busy
 * handler would sleep on this thread, 1, 2, 5, 10 ms and on, with every request of the process
 * waiting behind it: 85 such waits, 400 ms in all, in 6 s of keyed load during a webhook fan-out.
 * So the batch's `BEGIN` does not wait: it fails at once, and the batch (with what joins it) is tried
 * again a millisecond later while the event loop goes on, until the connection's busy timeout has
 * passed; then it fails as before. Nothing is written or answered any earlier.
 */
export function createWriteBatcher(db: SqliteDatabase): WriteBatcher {
  const busyTimeoutMs = Number(db.pragma("busy_timeout", { simple: true }));
  let batch: Pending[] = [];
  let busySince: number | undefined;
  let retry: NodeJS.Timeout | undefined;
  const commit = db.transaction((writes: Pending[]) =>
    writes.map(({ write }) => {
      try {
        return { ok: true, value: write() } as const;
      } catch (error) {
        // Some errors (SQLITE_FULL, IOERR, NOMEM, INTERRUPT, a trigger's RAISE(ROLLBACK)) roll back the
        // whole transaction: the writes after would each commit on their own, outside it. The batch
        // then fails as a whole: every write rejected, none applied.
        if (!db.inTransaction) throw error;
        return { ok: false, error } as const;
      }
    }),
  );
  const settle = (writes: Pending[], run: () => ReturnType<typeof commit>, waitAsync: boolean): void => {
    try {
      const results = run();
      busySince = undefined;
      results.forEach((result, index) => {
        const pending = writes[index] as Pending;
        if (result.ok) pending.resolve(result.value as never);
        else pending.reject(result.error);
      });
    } catch (error) {
      const now = Date.now();
      busySince ??= now;
      if (waitAsync && isBusy(error) && now - busySince < busyTimeoutMs) {
        batch = writes.concat(batch);
        retry = setTimeout(tryAgain, BUSY_RETRY_MS);
        return;
      }
      busySince = undefined;
      for (const pending of writes) pending.reject(error);
    }
  };
  // Without waiting for the lock: busy_timeout 0 for this one BEGIN IMMEDIATE. Prepared once: db.pragma()
  // prepares its statement on every call, which cost about 1 µs of every keyed request (the pair of
  // them: about 2 µs prepared, 6-9 µs through db.pragma, measured here).
  const noWait = db.prepare("PRAGMA busy_timeout = 0");
  const wait = db.prepare(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  // SQLite sets the busy timeout when the pragma is prepared, and its first run does nothing (the
  // statement expires then, and is prepared again, so setting it, on every later run). Preparing
  // `wait` after `noWait` left the timeout at its full value, so the first batch's BEGIN slept in the
  // busy handler, the whole busy timeout, on this thread. One run of each here, so every run after sets it.
  noWait.get();
  wait.get();
  const commitWithoutWaiting = (writes: Pending[]) => {
    noWait.get();
    try {
      return commit.immediate(writes);
    } finally {
      wait.get();
    }
  };
  const tryAgain = (): void => {
    retry = undefined;
    if (batch.length === 0) return;
    const writes = batch;
    batch = [];
    settle(writes, () => commitWithoutWaiting(writes), true);
  };
  return {
    write: <T>(write: () => T): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        if (batch.length === 0 && retry === undefined) setImmediate(tryAgain);
        batch.push({ write, resolve: resolve as (value: never) => void, reject });
      }),
    flush: () => {
      clearTimeout(retry);
      retry = undefined;
      if (batch.length === 0) return;
      const writes = batch;
      batch = [];
      busySince = undefined;
      settle(writes, () => commit.immediate(writes), false);
    },
  };
}

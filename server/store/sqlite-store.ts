import { createStorage } from "unstorage";
import { consumeInOrder, joinConsumes } from "./joined-consumes.ts";
import {
  assertAmount,
  assertCount,
  assertEpochMs,
  assertKey,
  assertQueueId,
  assertTtl,
  queueKey,
  sequenceKey,
  toCount,
  toJson,
} from "./keys.ts";
import { createWriteBatcher } from "./sqlite-batch.ts";
import { type Checkpointer, checkpointOffThread } from "./sqlite-checkpoints.ts";
import { openDatabase, type SqliteDatabase } from "./sqlite-database.ts";
import { createSqliteDriver, prepareKvStatements } from "./sqlite-driver.ts";
import { createSqliteQueue, prepareQueueStatements } from "./sqlite-queue.ts";
import { storageRecords } from "./storage-records.ts";
import type { RecordWrite, Store } from "./types.ts";

export interface SqliteStoreOptions {
  /** The database file (its folder is created when missing), or ":memory:" for a private one. */
  path: string;
  /** Reported by `kind`: "memory" for a private in-memory database. */
  kind?: "sqlite" | "memory";
  /** fsync every commit (`synchronous=FULL`); see openDatabase. */
  fsync?: boolean;
  clock?: () => number;
  /** How often expired rows are deleted; 0 turns the sweep off. Default 60 s. */
  sweepIntervalMs?: number;
  /** Fills a new database (the import of an older state folder). */
  onCreate?: (db: SqliteDatabase) => void;
  /** WAL checkpoints on a worker thread rather than in a commit (a server's; see sqlite-checkpoints.ts). */
  checkpointOffThread?: boolean;
}

// A row past its expiry is absent: counting starts again at `amount` with the new expiry. Every
// counter change is this one statement, so it is exact across processes: SQLite runs one writer at a
// time. No row comes back when `amount` does not fit under the limit; the caller then reads the count.
const CONSUME = `
  INSERT INTO kv (key, value, expires_at)
  SELECT :key, CAST(:amount AS INTEGER), :expiresAt WHERE :amount <= :limit
  ON CONFLICT (key) DO UPDATE SET
    value = iif(kv.expires_at <= :now, excluded.value, kv.value + excluded.value),
    expires_at = iif(kv.expires_at <= :now, excluded.expires_at, kv.expires_at)
  WHERE (kv.expires_at <= :now AND :amount <= :limit)
    OR (typeof(kv.value) = 'integer' AND kv.value + :amount <= :limit)
  RETURNING value`;
const NEXT = `
  INSERT INTO kv (key, value) VALUES (?, 1)
  ON CONFLICT (key) DO UPDATE SET value = kv.value + 1 WHERE typeof(kv.value) = 'integer'
  RETURNING value`;
const SET_IF_ABSENT = `
  INSERT INTO kv (key, value, expires_at) VALUES (:key, :value, :expiresAt)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
  WHERE kv.expires_at <= :now`;

/**
 * The embedded store: one SQLite database that every process of the service on this machine opens
 * (servers, workers, the key commands). Plain records go through unstorage (sqlite-driver.ts);
 * counters, sequences, set-if-absent and the queue are single SQL statements, atomic across those
 * processes. better-sqlite3 is synchronous: each call takes microseconds, and waits (up to the busy
 * timeout) only while another process commits.
 */
export function createSqliteStore(options: SqliteStoreOptions): Store {
  const clock = options.clock ?? Date.now;
  const db = openDatabase({ path: options.path, fsync: options.fsync, onCreate: options.onCreate });
  // Started with the first write, so a server that writes nothing (only static files served)
  // carries no second thread; until then SQLite checkpoints as usual.
  let checkpointer: Checkpointer | undefined;
  const offThread = options.checkpointOffThread === true && options.path !== ":memory:";
  const kv = prepareKvStatements(db);
  const storage = createStorage({ driver: createSqliteDriver({ kv, clock }) });
  const sql = {
    consume: db
      .prepare<{ key: string; expiresAt: number; now: number; limit: number; amount: number }, number>(
        CONSUME,
      )
      .pluck(),
    value: db.prepare<[string, number], number | string>(
      "SELECT value FROM kv WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)",
    ),
    // Many records in one statement: the keys as one JSON array, looked up in key order.
    values: db.prepare<[string, number], { key: string; value: number | string }>(
      "SELECT key, value FROM kv WHERE key IN (SELECT value FROM json_each(?)) " +
        "AND (expires_at IS NULL OR expires_at > ?)",
    ),
    next: db.prepare<[string], number>(NEXT).pluck(),
    setIfAbsent: db.prepare<{ key: string; value: string; expiresAt: number | null; now: number }>(
      SET_IF_ABSENT,
    ),
    sweep: db.prepare<[number]>("DELETE FROM kv WHERE expires_at <= ?"),
    // ";" follows ":" in code-unit order, so the range is exactly the keys that start with "prefix:".
    removeBelow: db.prepare<[string, string, string]>(
      "DELETE FROM kv WHERE key = ? OR (key >= ? AND key < ?)",
    ),
    queue: prepareQueueStatements(db),
  };
  sql.value.pluck();
  type Row = { key: string; value: string; expiresAt: number | null; now: number };
  const setWith = db.transaction(
    (claim: Row, records: Row[], pushes: (readonly [queue: string, id: string])[]): boolean => {
      if (sql.setIfAbsent.run(claim).changes !== 1) return false;
      for (const row of records) sql.setIfAbsent.run(row);
      for (const [queue, id] of pushes) sql.queue.push.run(queue, id, 0, queue);
      return true;
    },
  );
  // Every write of this connection goes through the batcher: the writes asked for in one turn of the
  // event loop share one commit. A webhook delivery made six writes (in its fan-out the record, its
  // listing and the push; then the claim, the attempt's record and the ack), each its own commit:
  // with their statements, over a third of the delivery thread's CPU per delivery. Now about 14
  // writes share a commit there.
  const batcher = createWriteBatcher(db);
  let closed = false;
  const closedError = () => new Error(`The ${options.kind ?? "sqlite"} store is closed`);
  const open = (): void => {
    if (closed) throw closedError();
  };
  const write = <T>(work: () => T): Promise<T> => {
    // A queue's moves come here without passing open(): after close, nothing may start the
    // checkpoint thread on the closed connection, nor reach the batcher.
    if (closed) return Promise.reject(closedError());
    if (offThread && checkpointer === undefined) {
      checkpointer = checkpointOffThread(db, { path: options.path, fsync: options.fsync });
    }
    return batcher.write(work);
  };
  const countOf = (key: string): number => {
    const value = sql.value.get(key, clock());
    return value === undefined ? 0 : toCount(key, String(value));
  };
  const consume = joinConsumes(
    write,
    consumeInOrder(
      (key, limit, expiresAt, amount) => sql.consume.get({ key, limit, expiresAt, amount, now: clock() }),
      countOf,
    ),
  );

  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  const timer =
    sweepIntervalMs > 0
      ? setInterval(() => {
          try {
            sql.sweep.run(clock());
          } catch (error) {
            // Busy past the timeout: the next sweep deletes them; reads skip expired rows anyway.
            console.error("[store] sqlite: sweep:", error);
          }
        }, sweepIntervalMs)
      : undefined;
  timer?.unref();

  return {
    kind: options.kind ?? "sqlite",
    ...storageRecords(storage, open),
    // Read without unstorage's key normalizing and promise layers (3-4% of a webhook delivery's CPU
    // went to them, for its five reads); keys are checked here as they are there.
    async getItem<T>(key: string): Promise<T | null> {
      open();
      const row = kv.get.get(assertKey(key), clock());
      return row === undefined ? null : (JSON.parse(String(row.value)) as T);
    },
    async getItems<T>(keys: readonly string[]): Promise<(T | null)[]> {
      open();
      for (const key of keys) assertKey(key);
      if (keys.length === 0) return [];
      const found = new Map<string, string>();
      for (const row of sql.values.all(JSON.stringify(keys), clock())) found.set(row.key, String(row.value));
      return keys.map((key) => {
        const text = found.get(key);
        return text === undefined ? null : (JSON.parse(text) as T);
      });
    },
    async setItem(key, value, opts) {
      open();
      const ttl = assertTtl(opts);
      const json = toJson(assertKey(key), value);
      await write(() => kv.set.run(key, json, ttl === undefined ? null : clock() + ttl * 1000));
    },
    async removeItem(key) {
      open();
      assertKey(key);
      await write(() => kv.remove.run(key));
    },
    async removeBelow(prefix) {
      open();
      assertKey(prefix);
      return write(() => sql.removeBelow.run(prefix, `${prefix}:`, `${prefix};`).changes);
    },
    async consume(key, limit, expiresAt, amount = 1) {
      open();
      return consume(
        assertKey(key),
        assertCount("limit", limit),
        assertEpochMs("expiresAt", expiresAt),
        assertAmount(amount),
      );
    },
    async peek(key) {
      open();
      return countOf(assertKey(key));
    },
    async next(sequence) {
      open();
      const key = sequenceKey(sequence);
      return write(() => {
        const value = sql.next.get(key);
        if (value === undefined) throw new Error(`Expected ${JSON.stringify(key)} to hold a sequence`);
        return value;
      });
    },
    async setIfAbsent(key, value, opts) {
      open();
      const ttl = assertTtl(opts);
      const json = toJson(assertKey(key), value);
      return write(() => {
        const now = clock();
        const row = { key, value: json, now, expiresAt: ttl === undefined ? null : now + ttl * 1000 };
        return sql.setIfAbsent.run(row).changes === 1;
      });
    },
    async setIfAbsentWith(key, value, also, opts) {
      open();
      // Checked now, so a bad argument throws at the call; the rows (their expiry from the clock) are
      // built when the batch runs, as the other writes' are.
      const writes = [{ key, value, ...opts }, ...(also.records ?? [])].map((record: RecordWrite) => ({
        ttl: assertTtl(record),
        key: assertKey(record.key),
        json: toJson(record.key, record.value),
      }));
      const pushes = (also.pushes ?? []).map(
        ({ queue, id }) => [queueKey(queue), assertQueueId(id)] as const,
      );
      // Within the batch's transaction, a savepoint: all of these or none, as before.
      return write(() => {
        const now = clock();
        const [claim, ...records] = writes.map(({ key, json, ttl }) => ({
          key,
          value: json,
          now,
          expiresAt: ttl === undefined ? null : now + ttl * 1000,
        }));
        return setWith(claim as Row, records, pushes);
      });
    },
    queue(name) {
      open();
      return createSqliteQueue(db, sql.queue, queueKey(name), { clock, write });
    },
    async ping() {
      if (closed) return false;
      try {
        return db.prepare("SELECT 1").pluck().get() === 1;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      batcher.flush();
      // Without a checkpoint thread the file is closed before close() returns, as a caller that does
      // not wait for it (and a second connection opened next) has always found it.
      if (checkpointer) await checkpointer.stop();
      db.close();
    },
  };
}

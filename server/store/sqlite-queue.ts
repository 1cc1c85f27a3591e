import { randomUUID } from "node:crypto";
import { assertEpochMs, assertLease, assertQueueId } from "./keys.ts";
import type { SqliteDatabase } from "./sqlite-database.ts";
import type { Claim, WorkQueue } from "./types.ts";

/** The statements of the `queue` table, prepared once per database and shared by every queue. */
export function prepareQueueStatements(db: SqliteDatabase) {
  return {
    // A new id goes after every id the queue holds: positions only grow, except at requeue. A pending
    // id due later than asked is brought forward, to the tail; an id in flight is left alone.
    push: db.prepare<[string, string, number, string]>(
      "INSERT INTO queue (name, id, position, due) " +
        "SELECT ?, ?, coalesce(max(position), 0) + 1, ? FROM queue WHERE name = ? " +
        "ON CONFLICT (name, id) DO UPDATE SET due = excluded.due, position = excluded.position " +
        "WHERE queue.token IS NULL AND queue.due > excluded.due",
    ),
    claim: db.prepare<[string, number, string, string, number], { id: string }>(
      "UPDATE queue SET token = ?, lease_until = ? WHERE name = ? AND id = " +
        "(SELECT id FROM queue WHERE name = ? AND token IS NULL AND due <= ? ORDER BY due, position LIMIT 1) " +
        "RETURNING id",
    ),
    defer: db.prepare<[number, string, string, string]>(
      "UPDATE queue SET token = NULL, lease_until = NULL, due = ? WHERE name = ? AND id = ? AND token = ?",
    ),
    ack: db.prepare<[string, string, string]>("DELETE FROM queue WHERE name = ? AND id = ? AND token = ?"),
    extend: db.prepare<[number, string, string, string]>(
      "UPDATE queue SET lease_until = ? WHERE name = ? AND id = ? AND token = ?",
    ),
    expired: db
      .prepare<[string, number], string>(
        "SELECT id FROM queue WHERE name = ? AND token IS NOT NULL AND lease_until <= ? ORDER BY lease_until, id",
      )
      .pluck(),
    head: db
      .prepare<[string], number>(
        "SELECT coalesce(min(position), 1) FROM queue WHERE name = ? AND token IS NULL",
      )
      .pluck(),
    release: db.prepare<[number, string, string]>(
      "UPDATE queue SET token = NULL, lease_until = NULL, due = 0, position = ? WHERE name = ? AND id = ?",
    ),
    size: db.prepare<[string], { pending: number; inFlight: number }>(
      "SELECT count(*) FILTER (WHERE token IS NULL) AS pending, " +
        "count(*) FILTER (WHERE token IS NOT NULL) AS inFlight FROM queue WHERE name = ?",
    ),
  };
}

export type QueueStatements = ReturnType<typeof prepareQueueStatements>;

export interface SqliteQueueOptions {
  clock: () => number;
  /** Runs a write in the connection's shared commit (see sqlite-batch.ts). */
  write: <T>(write: () => T) => Promise<T>;
}

/**
 * A WorkQueue as rows of the `queue` table: pending rows have no token, in-flight rows hold a lease.
 * Every move is one statement (requeueing several ids, one transaction), so it holds across every
 * process that opens the database, and costs a few index lookups whatever the queue's length. Moves
 * asked for in one turn of the event loop share a commit with the connection's other writes.
 */
export function createSqliteQueue(
  db: SqliteDatabase,
  sql: QueueStatements,
  name: string,
  { clock, write }: SqliteQueueOptions,
): WorkQueue {
  const requeue = db.transaction((now: number): string[] => {
    const ids = sql.expired.all(name, now);
    const head = sql.head.get(name) ?? 1;
    for (const [index, id] of ids.entries()) sql.release.run(head - ids.length + index, name, id);
    return ids;
  });
  return {
    async push(id, opts) {
      const due = opts?.notBefore === undefined ? 0 : assertEpochMs("notBefore", opts.notBefore);
      assertQueueId(id);
      return write(() => sql.push.run(name, id, due, name).changes === 1);
    },
    async claim(leaseMs) {
      assertLease(leaseMs);
      const token = randomUUID();
      return write(() => {
        const now = clock();
        const leaseUntil = now + leaseMs;
        const row = sql.claim.get(token, leaseUntil, name, name, now);
        return row === undefined ? null : { id: row.id, token, leaseUntil };
      });
    },
    async ack(claim) {
      return write(() => sql.ack.run(name, claim.id, claim.token).changes === 1);
    },
    async defer(claim, notBefore) {
      assertEpochMs("notBefore", notBefore);
      return write(() => sql.defer.run(notBefore, name, claim.id, claim.token).changes === 1);
    },
    async extend(claim, leaseMs): Promise<Claim | null> {
      assertLease(leaseMs);
      return write(() => {
        const leaseUntil = clock() + leaseMs;
        return sql.extend.run(leaseUntil, name, claim.id, claim.token).changes === 1
          ? { ...claim, leaseUntil }
          : null;
      });
    },
    async requeueExpired() {
      return write(() => requeue(clock()));
    },
    async size() {
      return sql.size.get(name) ?? { pending: 0, inFlight: 0 };
    },
  };
}

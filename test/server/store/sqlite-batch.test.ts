import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createSqliteStore } from "../../../server/store/sqlite-store.ts";

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rp-batch-"));
  path = join(dir, "picks.db");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Regression: while another connection held the write lock, the batch's commit slept in SQLite's
// busy handler on the serving thread. Now it waits without blocking the event loop, then commits.
it("waits for another connection's write lock without blocking the event loop, then commits exactly", async () => {
  const store = createSqliteStore({ path, sweepIntervalMs: 0 });
  const until = Date.now() + 60_000;
  await store.consume("usage:k", 10, until);
  const other = new Database(path);
  other.exec("BEGIN IMMEDIATE");
  const spends = Promise.all(Array.from({ length: 5 }, () => store.consume("usage:k", 10, until)));
  let ticks = 0;
  const ticking = setInterval(() => ticks++, 5);
  await sleep(200);
  // Blocked in SQLite's busy handler, the event loop would not have run the interval once.
  expect(ticks).toBeGreaterThan(2);
  other.exec("COMMIT");
  other.close();
  clearInterval(ticking);
  const counts = (await spends).map((spent) => spent.count).sort((a, b) => a - b);
  expect(counts).toEqual([2, 3, 4, 5, 6]);
  await store.close();
});

// Regression: after an error that rolls back the whole transaction (a full disk, an I/O error, a
// trigger's RAISE(ROLLBACK)), the batch's later writes ran outside any transaction and committed
// each on its own, while every write was reported failed.
it("fails the whole batch, applying none of its writes, when one write rolls back the transaction", async () => {
  const store = createSqliteStore({ path, sweepIntervalMs: 0 });
  await store.setItem("before", 1);
  const other = new Database(path);
  other.exec(`CREATE TRIGGER rollback_rb BEFORE INSERT ON kv WHEN NEW.key = 'rb'
    BEGIN SELECT RAISE(ROLLBACK, 'rolled back'); END`);
  const queue = store.queue("jobs");
  const answers = await Promise.allSettled([
    store.setItem("d", 1),
    store.setItem("rb", 2),
    store.setItem("e", 3),
    queue.push("z"),
  ]);
  expect(answers.map((answer) => answer.status)).toEqual(["rejected", "rejected", "rejected", "rejected"]);
  expect(other.prepare("SELECT key FROM kv ORDER BY key").pluck().all()).toEqual(["before"]);
  expect(other.prepare("SELECT count(*) FROM queue").pluck().get()).toBe(0);
  // The connection is usable again: the next turn's writes commit.
  await store.setItem("after", 4);
  expect(await store.getItem("after")).toBe(4);
  other.close();
  await store.close();
});

it("rolls back only set-if-absent-with's own writes when one of them aborts, committing the turn's others", async () => {
  const store = createSqliteStore({ path, sweepIntervalMs: 0 });
  await store.setItem("before", 1);
  const other = new Database(path);
  other.exec(`CREATE TRIGGER abort_bad BEFORE INSERT ON kv WHEN NEW.key = 'bad'
    BEGIN SELECT RAISE(ABORT, 'aborted'); END`);
  const queue = store.queue("jobs");
  const answers = await Promise.allSettled([
    store.setItem("d", 1),
    store.setIfAbsentWith("claim", 2, {
      records: [{ key: "bad", value: 3 }],
      pushes: [{ queue: "jobs", id: "y" }],
    }),
    store.setItem("e", 4),
    queue.push("z"),
  ]);
  expect(answers.map((answer) => answer.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
  expect(other.prepare("SELECT key FROM kv ORDER BY key").pluck().all()).toEqual(["before", "d", "e"]);
  expect(other.prepare("SELECT id FROM queue").pluck().all()).toEqual(["z"]);
  other.close();
  await store.close();
});

// Regression: SQLite applies `PRAGMA busy_timeout` when the statement is prepared, so the first run of
// the prepared "busy_timeout = 0" did nothing, and a fresh connection's first contended batch slept
// in the busy handler on the serving thread for the whole busy timeout.
it("does not block the event loop when a fresh store's first write meets another connection's lock", async () => {
  const setup = new Database(path);
  setup.pragma("journal_mode = WAL");
  setup.close();
  const store = createSqliteStore({ path, sweepIntervalMs: 0 });
  const other = new Database(path);
  other.exec("BEGIN IMMEDIATE");
  const started = Date.now();
  const written = store.setItem("first", 1);
  // A timer due at 50 ms fires long before the 5 s busy timeout would have let go of the thread.
  const fired = await new Promise<number>((resolve) => setTimeout(() => resolve(Date.now() - started), 50));
  expect(fired).toBeLessThan(1_000);
  other.exec("COMMIT");
  other.close();
  await written;
  expect(await store.getItem("first")).toBe(1);
  await store.close();
});

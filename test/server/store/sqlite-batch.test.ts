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

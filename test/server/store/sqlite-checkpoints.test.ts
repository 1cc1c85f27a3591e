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
  dir = await mkdtemp(join(tmpdir(), "rp-checkpoints-"));
  path = join(dir, "picks.db");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Frames in the WAL now, read by a connection of its own (a PASSIVE checkpoint reports them). */
function walFrames(): number {
  const db = new Database(path);
  try {
    const [row] = db.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
    return row?.log ?? -1;
  } finally {
    db.close();
  }
}

// Regression: a server's commits no longer checkpoint (that stalled the serving thread every ~500
// group commits); the thread that does it instead must keep the WAL from growing without end.
it("checkpoints on its thread: the WAL starts again after many commits, and counts stay exact", async () => {
  const store = createSqliteStore({ path, checkpointOffThread: true, sweepIntervalMs: 0 });
  const until = Date.now() + 60_000;
  for (let i = 0; i < 1500; i++) await store.consume("usage:k", 10_000, until);
  await sleep(600);
  // The first commit after a complete checkpoint writes from the WAL's start again.
  expect((await store.consume("usage:k", 10_000, until)).count).toBe(1501);
  expect(walFrames()).toBeLessThan(100);
  await store.close();
});

it("closes without waiting on anything else", async () => {
  const store = createSqliteStore({ path, checkpointOffThread: true, sweepIntervalMs: 0 });
  await store.consume("usage:k", 10, Date.now() + 60_000);
  await store.close();
  const db = new Database(path, { readonly: true });
  expect(db.prepare("SELECT value FROM kv WHERE key = 'usage:k'").pluck().get()).toBe(1);
  db.close();
});

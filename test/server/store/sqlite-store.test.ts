import { mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../../server/store/sqlite-database.ts";
import { createSqliteStore } from "../../../server/store/sqlite-store.ts";
import { collectLines, expectExactAcrossProcesses, spawnFixture } from "./child.ts";

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rp-sqlite-"));
  path = join(dir, "picks.db");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("SQLite store", () => {
  it("moves a schema 1 database to schema 2, keeping its queue, and delays pushes after", async () => {
    const v1 = new Database(path);
    v1.exec(`
      CREATE TABLE kv (key TEXT PRIMARY KEY NOT NULL, value NOT NULL, expires_at INTEGER) WITHOUT ROWID;
      CREATE INDEX kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE queue (
        name TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, token TEXT, lease_until INTEGER,
        PRIMARY KEY (name, id)
      ) WITHOUT ROWID;
      CREATE INDEX queue_pending ON queue (name, position) WHERE token IS NULL;
      CREATE INDEX queue_leases ON queue (name, lease_until) WHERE token IS NOT NULL;
      INSERT INTO queue (name, id, position) VALUES ('_queue:jobs', 'old', 1);
    `);
    v1.pragma("application_id = 1380993875");
    v1.pragma("user_version = 1");
    v1.close();
    const store = createSqliteStore({ path });
    const queue = store.queue("jobs");
    expect(await queue.push("later", { notBefore: Date.now() + 60_000 })).toBe(true);
    expect((await queue.claim(60_000))?.id).toBe("old");
    expect(await queue.claim(60_000)).toBeNull();
    await store.close();
    const db = new Database(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it("keeps records, counters, sequences, queues and TTLs across a reopen", async () => {
    const first = createSqliteStore({ path });
    await first.setItem("key:abc", { email: "hashed", tier: "free" });
    await first.setItem("short", 1, { ttlSeconds: 1 });
    await first.setItem("long", 2, { ttlSeconds: 600 });
    await first.consume("usage:abc:2026-11-22", 10, Date.now() + 60_000);
    await first.consume("usage:abc:2026-11-22", 10, Date.now() + 60_000);
    await first.next("submissions");
    const queue = first.queue("scoring");
    await queue.push("s1");
    await queue.push("s2");
    const claim = await queue.claim(60_000);
    await first.close();

    await sleep(1_050);
    const second = createSqliteStore({ path });
    expect(await second.getItem("key:abc")).toEqual({ email: "hashed", tier: "free" });
    expect(await second.getItem("short")).toBeNull();
    expect(await second.getItem("long")).toBe(2);
    expect(await second.peek("usage:abc:2026-11-22")).toBe(2);
    expect(await second.next("submissions")).toBe(2);
    const reopened = second.queue("scoring");
    expect(await reopened.size()).toEqual({ pending: 1, inFlight: 1 });
    expect(claim && (await reopened.ack(claim))).toBe(true);
    await second.close();
  });

  it("shares one database between two open stores: each sees the other's writes at once", async () => {
    const a = createSqliteStore({ path });
    const b = createSqliteStore({ path });
    await a.setItem("apikey:x", { tier: "pro" });
    expect(await b.getItem("apikey:x")).toEqual({ tier: "pro" });
    const expiresAt = Date.now() + 60_000;
    expect(await a.consume("quota", 2, expiresAt)).toEqual({ allowed: true, count: 1 });
    expect(await b.consume("quota", 2, expiresAt)).toEqual({ allowed: true, count: 2 });
    expect(await a.consume("quota", 2, expiresAt)).toEqual({ allowed: false, count: 2 });
    await Promise.all([a.close(), b.close()]);
  });

  it("commits the counting writes of one turn together; one that fails fails alone", async () => {
    const store = createSqliteStore({ path });
    await store.setItem("not-a-counter", { tier: "pro" });
    const expiresAt = Date.now() + 60_000;
    const answers = await Promise.allSettled([
      store.consume("quota", 3, expiresAt),
      store.consume("not-a-counter", 3, expiresAt),
      store.consume("quota", 3, expiresAt),
      store.next("ids"),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect(await store.peek("quota")).toBe(2);
    expect(await store.getItem("not-a-counter")).toEqual({ tier: "pro" });
    // Closing commits what was asked for before it.
    const last = store.consume("quota", 3, expiresAt);
    await store.close();
    expect(await last).toEqual({ allowed: true, count: 3 });
    const reopened = createSqliteStore({ path });
    expect(await reopened.peek("quota")).toBe(3);
    await reopened.close();
  });

  it("keeps quotas exact, sequences unique and claims single across three processes", async () => {
    const store = createSqliteStore({ path });
    await expectExactAcrossProcesses(store, [
      ["sqlite", path],
      ["sqlite", path],
      ["sqlite", path],
    ]);
    await store.close();
  }, 60_000);

  it("never loses an answered count nor tears a record when the process is SIGKILLed", async () => {
    let reportedHits = 0;
    let reportedId = 0;
    for (const killAfterLines of [1, 40, 200, 600]) {
      const child = spawnFixture("sqlite-increments.ts", [path]);
      let lines = 0;
      const exited = collectLines(child, (line) => {
        const [hits, id] = line.split(" ").map(Number);
        reportedHits = Math.max(reportedHits, hits ?? 0);
        reportedId = Math.max(reportedId, id ?? 0);
        if (++lines === killAfterLines) setTimeout(() => child.kill("SIGKILL"), Math.random() * 20);
      });
      const { signal, stderr } = await exited;
      expect(signal, stderr).toBe("SIGKILL");
      const store = createSqliteStore({ path });
      expect(await store.peek("hits")).toBeGreaterThanOrEqual(reportedHits);
      expect(await store.next("ids")).toBeGreaterThan(reportedId);
      const blob = await store.getItem<{ worker: number; padding: string }>("blob:0");
      expect(blob?.padding).toHaveLength(64 * 1024);
      await store.close();
    }
  }, 60_000);

  it("commits the records and queue moves of one turn together, none before the turn ends", async () => {
    const store = createSqliteStore({ path });
    const other = createSqliteStore({ path });
    const queue = store.queue("jobs");
    await queue.push("old");
    const claim = await queue.claim(60_000);
    const asked = Promise.allSettled([
      store.setItem("record:a", { n: 1 }),
      store.consume("record:a", 3, Date.now() + 60_000),
      store.setIfAbsent("record:b", 2),
      store.setIfAbsentWith("record:c", 3, {
        records: [{ key: "record:d", value: 4 }],
        pushes: [{ queue: "jobs", id: "new" }],
      }),
      queue.ack(claim as NonNullable<typeof claim>),
      store.removeItem("record:b"),
    ]);
    // Asked for, not yet committed: another connection sees none of it.
    expect(await other.getItem("record:a")).toBeNull();
    expect(await other.queue("jobs").size()).toEqual({ pending: 0, inFlight: 1 });
    const answers = await asked;
    expect(answers.map((answer) => answer.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    // In the order asked: b was set, then removed.
    expect(await other.getItem("record:a")).toEqual({ n: 1 });
    expect(await other.getItem("record:b")).toBeNull();
    expect(await other.getItem("record:d")).toBe(4);
    expect((await other.queue("jobs").claim(60_000))?.id).toBe("new");
    await Promise.all([store.close(), other.close()]);
  });

  it("reads the clock for set-if-absent-with when its batch runs, as every other write does", async () => {
    let now = 1_000_000;
    const store = createSqliteStore({ path, clock: () => now, sweepIntervalMs: 0 });
    const set = store.setIfAbsentWith(
      "claim",
      1,
      { records: [{ key: "record", value: 2, ttlSeconds: 5 }] },
      {
        ttlSeconds: 10,
      },
    );
    now = 2_000_000;
    expect(await set).toBe(true);
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT key, expires_at AS expiresAt FROM kv ORDER BY key").all()).toEqual([
      { key: "claim", expiresAt: 2_010_000 },
      { key: "record", expiresAt: 2_005_000 },
    ]);
    db.close();
  });

  it("refuses a queue write after close, without starting its checkpoint thread", async () => {
    const store = createSqliteStore({ path, checkpointOffThread: true, sweepIntervalMs: 0 });
    const queue = store.queue("jobs");
    await store.close();
    await expect(queue.push("late")).rejects.toThrow("The sqlite store is closed");
    await expect(queue.claim(60_000)).rejects.toThrow("The sqlite store is closed");
  });

  it("never acknowledges a job without its record when a worker is SIGKILLed mid-batch", async () => {
    const ids = Array.from({ length: 3_000 }, (_, n) => `job-${n}`);
    const seeded = createSqliteStore({ path });
    for (const id of ids) await seeded.queue("jobs").push(id);
    await seeded.close();
    const recorded = new Set<string>();
    const acked = new Set<string>();
    for (const killAfterLines of [1, 100, 800]) {
      const child = spawnFixture("sqlite-record-then-ack.ts", [path]);
      // Killed after its line number `killAfterLines`, or at the latest on this deadline: on a slow
      // machine it may print fewer lines. It also exits by itself once no job is left to claim.
      const deadline = setTimeout(() => child.kill("SIGKILL"), 15_000);
      try {
        let lines = 0;
        const { code, signal, stderr } = await collectLines(child, (line) => {
          const [what, id] = line.split(" ");
          (what === "acked" ? acked : recorded).add(id as string);
          if (++lines === killAfterLines) setTimeout(() => child.kill("SIGKILL"), Math.random() * 20);
        });
        expect(signal === "SIGKILL" || code === 0, `${signal} ${code} ${stderr}`).toBe(true);
      } finally {
        clearTimeout(deadline);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      const db = new Database(path, { readonly: true });
      const queued = new Set(
        db.prepare("SELECT id FROM queue WHERE name = '_queue:jobs'").pluck().all() as string[],
      );
      const records = new Set(
        (db.prepare("SELECT key FROM kv WHERE key LIKE 'record:%'").pluck().all() as string[]).map((key) =>
          key.slice("record:".length),
        ),
      );
      db.close();
      // Every answered write is there, every answered ack too, and a job left the queue only with its record.
      for (const id of recorded) expect(records.has(id), id).toBe(true);
      for (const id of acked) expect(queued.has(id), id).toBe(false);
      for (const id of ids) if (!queued.has(id)) expect(records.has(id), id).toBe(true);
      // The next child claims the jobs still pending. Those this one held stay in flight: their
      // leases (600 s) outlive the test, so nothing is requeued for it.
    }
    expect(acked.size).toBeGreaterThan(0);
  }, 60_000);

  it("creates its folder and files for its user alone, and never opens through a symbolic link (regression: issue 15, item 7)", async () => {
    const folder = join(dir, "state");
    const inside = join(folder, "picks.db");
    const store = createSqliteStore({ path: inside });
    await store.setItem("k", 1);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    for (const file of ["picks.db", "picks.db-wal", "picks.db-shm"]) {
      expect((await stat(join(folder, file))).mode & 0o777, file).toBe(0o600);
    }
    await store.close();

    const target = join(dir, "elsewhere.db");
    await writeFile(target, "");
    await symlink(target, path);
    expect(() => createSqliteStore({ path })).toThrow(
      `Expected ${path} to be the state database itself, not a symbolic link`,
    );
    expect((await stat(target)).size).toBe(0);
  });

  describe("refuses a file it must not use, names it, and leaves it as it was", () => {
    it("a file that is not SQLite", async () => {
      const text = "id,title\n2401.00001,not a database\n".repeat(200);
      await writeFile(path, text);
      expect(() => createSqliteStore({ path })).toThrow(`Expected ${path} to be a SQLite state database`);
      expect(await readFile(path, "utf8")).toBe(text);
    });

    it("another program's SQLite database", async () => {
      const other = new Database(path);
      other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
      other.close();
      const before = await readFile(path);
      expect(() => createSqliteStore({ path })).toThrow(
        `Expected ${path} to be this service's state database, but it is another program's SQLite file`,
      );
      expect((await readFile(path)).equals(before)).toBe(true);
    });

    it("a database of a newer schema", async () => {
      createSqliteStore({ path }).close();
      const db = new Database(path);
      db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
      db.close();
      const before = await readFile(path);
      expect(() => createSqliteStore({ path })).toThrow(
        `Expected ${path} to have schema version ${SCHEMA_VERSION} or older, got ${SCHEMA_VERSION + 1}`,
      );
      expect((await readFile(path)).equals(before)).toBe(true);
    });
  });
});

import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStoreFromEnv } from "../../../server/store/from-env.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rp-legacy-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const future = Date.now() + 3_600_000;
const record = (value: unknown, expiresAt: number | null = null) => JSON.stringify({ value, expiresAt });

/** A state folder as the file store left it: record files, a journal with a torn last line, its own files. */
const OLD_FOLDER: Record<string, string> = {
  "apikey~abc.json": record({ id: "key_1", tier: "pro" }),
  "apikeyid~key_1.json": record("abc"),
  "usage~key_1~3.json": record(7, future),
  "_seq~submissions.json": record(12),
  "_queue~scoring.json": record({
    pending: ["s3", "s4"],
    inflight: [{ id: "s2", token: "dead-worker", leaseUntil: 1 }],
  }),
  "submission~s2.json": record({ id: "s2", status: "scoring" }),
  "gone.json": record("removed in the journal"),
  "brief.json": record("expired", 1),
  ".journal-1": [
    `{"k":"usage:key_1:3","e":${future},"v":8}`,
    '{"k":"gone"}',
    "a line that a failed write left",
    '{"k":"submission:s5","e":null,"v":{"id":"s5","status":"queued"}}',
    '{"k":"usage:key_1:3","e":',
  ].join("\n"),
  ".lock": "4242\n",
  ".admin-channel.json": '{"pid":4242,"url":"http://127.0.0.1:1","token":"x"}',
};

describe("the first start on a state folder of the older file store", () => {
  it("imports keys, counters, sequences, submissions and the queue once, and leaves the old files as they were", async () => {
    for (const [name, text] of Object.entries(OLD_FOLDER)) await writeFile(join(dir, name), text);
    const logged: string[] = [];
    const open = () => createStoreFromEnv({ STATE_DIR: dir }, { log: (line) => logged.push(line) });

    const store = await open();
    expect(logged).toEqual([
      `[store] imported 6 records and 3 queued submissions from the file store in ${dir} into picks.db; ` +
        "skipped 1 unreadable entries; the old files are left as they were",
    ]);
    expect(await store.getItem("apikey:abc")).toEqual({ id: "key_1", tier: "pro" });
    expect(await store.getItem("apikeyid:key_1")).toBe("abc");
    expect(await store.getItem("submission:s5")).toEqual({ id: "s5", status: "queued" });
    expect(await store.getItem("gone")).toBeNull();
    expect(await store.getItem("brief")).toBeNull();
    expect(await store.getKeys("usage")).toEqual(["usage:key_1:3"]);
    // The journal's count wins over the record file's, and counting goes on from it.
    expect(await store.consume("usage:key_1:3", 100, future)).toEqual({ allowed: true, count: 9 });
    expect(await store.next("submissions")).toBe(13);
    const queue = store.queue("scoring");
    expect(await queue.size()).toEqual({ pending: 3, inFlight: 0 });
    const claimed = [];
    for (let claim = await queue.claim(60_000); claim; claim = await queue.claim(60_000))
      claimed.push(claim.id);
    expect(claimed).toEqual(["s2", "s3", "s4"]);
    await store.close();

    for (const [name, text] of Object.entries(OLD_FOLDER)) {
      expect(await readFile(join(dir, name), "utf8"), name).toBe(text);
    }
    expect((await readdir(dir)).filter((name) => name.startsWith("picks.db"))).toContain("picks.db");

    // Once: a later change to the old files is not imported again.
    await writeFile(join(dir, "apikey~abc.json"), record({ id: "key_1", tier: "free" }));
    const again = await open();
    expect(await again.getItem("apikey:abc")).toEqual({ id: "key_1", tier: "pro" });
    expect(logged).toHaveLength(1);
    await again.close();
  });

  it("says nothing and imports nothing from a folder without old records", async () => {
    await writeFile(join(dir, "README.txt"), "not a record");
    const logged: string[] = [];
    const store = await createStoreFromEnv({ STATE_DIR: dir }, { log: (line) => logged.push(line) });
    expect(await store.getKeys("")).toEqual([]);
    expect(logged).toEqual([]);
    await store.close();
  });
});

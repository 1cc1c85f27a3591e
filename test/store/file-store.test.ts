import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFileStore } from "../../server/store/file-store.ts";
import { collectLines, spawnFixture } from "./child.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rp-file-store-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("file store", () => {
  it("keeps records, counters, sequences, queues and TTLs across a reopen", async () => {
    const first = await createFileStore({ dir });
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

    const names = (await readdir(dir)).sort();
    expect(names).toContain("usage~abc~2026-11-22.json");
    expect(names).toContain("_seq~submissions.json");
    expect(names).not.toContain(".lock");
    expect(JSON.parse(await readFile(join(dir, "key~abc.json"), "utf8"))).toEqual({
      value: { email: "hashed", tier: "free" },
      expiresAt: null,
    });

    await sleep(1_050);
    const second = await createFileStore({ dir });
    expect(await second.getItem("key:abc")).toEqual({ email: "hashed", tier: "free" });
    expect(await second.getItem("short")).toBeNull();
    expect(await readdir(dir)).not.toContain("short.json");
    expect(await second.getItem("long")).toBe(2);
    expect(await second.peek("usage:abc:2026-11-22")).toBe(2);
    expect(await second.next("submissions")).toBe(2);
    const reopened = second.queue("scoring");
    expect(await reopened.size()).toEqual({ pending: 1, inFlight: 1 });
    expect(claim && (await reopened.ack(claim))).toBe(true);
    await second.close();
  });

  it("deletes expired records from disk after the periodic sweep, at the next compaction", async () => {
    const first = await createFileStore({ dir });
    await first.setItem("brief", 1, { ttlSeconds: 1 });
    await first.close();
    expect(await readdir(dir)).toContain("brief.json");
    // A 1-byte journal limit compacts after every batch, here the sweep's removal.
    const store = await createFileStore({ dir, sweepIntervalMs: 100, journalMaxBytes: 1 });
    await sleep(1_300);
    await vi.waitFor(async () => expect(await readdir(dir)).not.toContain("brief.json"));
    await store.close();
  });

  it("refuses a folder held by this or another live process, and takes over a dead one's", async () => {
    const store = await createFileStore({ dir });
    await expect(createFileStore({ dir })).rejects.toThrow(/already open in this process/);
    await store.close();

    await writeFile(join(dir, ".lock"), `${process.ppid}\n`);
    await expect(createFileStore({ dir })).rejects.toThrow(`in use by process ${process.ppid}`);

    const dead = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => dead.once("exit", resolve));
    await writeFile(join(dir, ".lock"), `${dead.pid}\n`);
    const takeover = await createFileStore({ dir });
    expect(await readFile(join(dir, ".lock"), "utf8")).toBe(`${process.pid}\n`);
    await takeover.close();
  });

  it("clears a killed writer's temp files at open and fails loudly on a corrupt record", async () => {
    await writeFile(join(dir, ".tmp-123-abcd-1"), '{"value":');
    await writeFile(join(dir, "ok.json"), '{"value":1,"expiresAt":null}');
    const store = await createFileStore({ dir });
    expect(await readdir(dir)).not.toContain(".tmp-123-abcd-1");
    expect(await store.getItem("ok")).toBe(1);
    await store.close();

    await writeFile(join(dir, "bad.json"), '{"value":');
    await expect(createFileStore({ dir })).rejects.toThrow(/record of "bad" to be JSON/);
    await expect(readdir(dir)).resolves.not.toContain(".lock");
  });

  it("never loses an answered increment nor tears a record when the process is SIGKILLed", async () => {
    let reportedHits = 0;
    let reportedId = 0;
    for (const killAfterLines of [1, 40, 200, 600]) {
      const child = spawnFixture("file-increments.ts", [dir]);
      let lines = 0;
      const exited = collectLines(child, (line) => {
        const [hits, id] = line.split(" ").map(Number);
        reportedHits = Math.max(reportedHits, hits ?? 0);
        reportedId = Math.max(reportedId, id ?? 0);
        if (++lines === killAfterLines) {
          setTimeout(() => child.kill("SIGKILL"), Math.random() * 20);
        }
      });
      const { signal, stderr } = await exited;
      expect(signal, stderr).toBe("SIGKILL");
      expect(lines).toBeGreaterThanOrEqual(killAfterLines);

      for (const name of (await readdir(dir)).filter((file) => file.endsWith(".json"))) {
        const text = await readFile(join(dir, name), "utf8");
        expect(() => JSON.parse(text), `${name}: ${text.slice(0, 60)}`).not.toThrow();
      }
      const store = await createFileStore({ dir });
      expect(await store.peek("hits")).toBeGreaterThanOrEqual(reportedHits);
      expect(await store.next("ids")).toBeGreaterThan(reportedId);
      const blob = await store.getItem<{ worker: number; padding: string }>("blob:0");
      expect(blob?.padding).toHaveLength(64 * 1024);
      await store.close();
    }
  }, 60_000);
});

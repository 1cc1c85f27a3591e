import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileStore } from "../../server/store/file-store.ts";
import { encodeChange } from "../../server/store/journal-format.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rp-journal-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const record = (value: unknown) => JSON.stringify({ value, expiresAt: null });
const line = (key: string, value?: unknown) =>
  encodeChange(key, value === undefined ? undefined : { json: JSON.stringify(value), expiresAt: null });
const journals = async () => (await readdir(dir)).filter((name) => name.startsWith(".journal-")).sort();
const readRecord = async (name: string) => JSON.parse(await readFile(join(dir, name), "utf8")).value;

/** Writes a folder as a kill could have left it, opens the store and reads `keys` back. */
async function recover(files: Record<string, string>, keys: string[]): Promise<unknown[]> {
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(dir, name), text);
  }
  const store = await createFileStore({ dir, fsync: false });
  try {
    return await Promise.all(keys.map((key) => store.getItem(key)));
  } finally {
    await store.close();
  }
}

describe("file store journal", () => {
  it("answers changes from the journal, and folds it into the record files at close", async () => {
    const store = await createFileStore({ dir });
    await store.setItem("a", { n: 1 });
    await store.consume("hits", 10, Date.now() + 60_000);
    expect(await journals()).toEqual([".journal-1"]);
    expect(await readFile(join(dir, ".journal-1"), "utf8")).toContain('{"k":"hits","e":');
    expect(await readdir(dir)).not.toContain("a.json");
    await store.close();
    expect(await journals()).toEqual([]);
    expect(await readRecord("a.json")).toEqual({ n: 1 });
    expect(await readRecord("hits.json")).toBe(1);
  });

  it("replays journals over the records, oldest first, last line winning, and compacts at open", async () => {
    await writeFile(join(dir, "a.json"), record(1));
    await writeFile(join(dir, "c.json"), record("to remove"));
    await writeFile(join(dir, ".journal-4"), line("a", 2) + line("b", 3) + line("c"));
    await writeFile(join(dir, ".journal-5"), line("a", 4));
    const store = await createFileStore({ dir, fsync: false });
    expect(await journals()).toEqual([".journal-6"]);
    expect(await readRecord("a.json")).toBe(4);
    expect(await readRecord("b.json")).toBe(3);
    expect(await readdir(dir)).not.toContain("c.json");
    expect([await store.getItem("a"), await store.getItem("b"), await store.getItem("c")]).toEqual([
      4,
      3,
      null,
    ]);
    await store.close();
  });

  it("drops a torn last line, which was never answered, and appends only to a new journal", async () => {
    const torn = line("a", "second").slice(0, -6);
    await writeFile(join(dir, ".journal-1"), line("a", "first") + torn);
    const store = await createFileStore({ dir, fsync: false });
    expect(await store.getItem("a")).toBe("first");
    await store.setItem("a", "third");
    expect(await journals()).toEqual([".journal-2"]);
    await store.close();
    expect(await recover({}, ["a"])).toEqual(["third"]);
  });

  it("keeps the lines after a damaged one (a failed write, then later batches)", async () => {
    const damaged = `${line("a", 1)}${line("a", 2).slice(0, 9)}\n${line("b", 3)}`;
    expect(await recover({ ".journal-1": damaged }, ["a", "b"])).toEqual([1, 3]);
  });

  // The folder as a kill leaves it between two steps of a compaction (journal-compaction.ts). In
  // each, the newest journal holds the last answered state: a=7, b removed, c=2.
  const states: Array<[string, Record<string, string>]> = [
    [
      "after a rotation, before any record",
      {
        "a.json": record(1),
        "b.json": record(1),
        ".journal-1": line("a", 5) + line("b", 1) + line("c", 2),
        ".journal-2": line("a", 7) + line("b"),
      },
    ],
    [
      "half-way through the records, one holding a state newer than any line (never answered)",
      {
        "a.json": record(9),
        "b.json": record(1),
        ".journal-1": line("a", 5) + line("b", 1) + line("c", 2),
        ".journal-2": line("a", 7) + line("b"),
      },
    ],
    [
      "after the records, before removing the journal",
      {
        "a.json": record(8),
        "c.json": record(2),
        ".journal-1": line("a", 5) + line("b", 1) + line("c", 2),
        ".journal-2": line("a", 7) + line("b"),
      },
    ],
    [
      "after removing the journal, with an empty one from the next rotation",
      { "a.json": record(8), "c.json": record(2), ".journal-2": line("a", 7) + line("b"), ".journal-3": "" },
    ],
    ["after a clean close", { "a.json": record(7), "c.json": record(2) }],
  ];
  it.each(states)("recovers every answered state when killed %s", async (_, files) => {
    expect(await recover(files, ["a", "b", "c"])).toEqual([7, null, 2]);
    expect(await journals()).toEqual([]);
  });

  it("rotates and compacts while it serves, keeping exact counts and few journals", async () => {
    const expiresAt = Date.now() + 60_000;
    const store = await createFileStore({ dir, fsync: false, journalMaxBytes: 2_048 });
    let most = 0;
    for (let round = 0; round < 40; round++) {
      await Promise.all([
        ...Array.from({ length: 50 }, (_, i) => store.consume(`quota:${i % 5}`, 1e6, expiresAt)),
        store.setItem(`item:${round % 7}`, { round, padding: "x".repeat(200) }),
        store.next("ids"),
      ]);
      most = Math.max(most, (await journals()).length);
    }
    expect(most).toBeGreaterThanOrEqual(2);
    expect(most).toBeLessThanOrEqual(3);
    expect(await store.peek("quota:0")).toBe(400);
    await store.close();
    const reopened = await createFileStore({ dir, fsync: false });
    expect(await Promise.all(Array.from({ length: 5 }, (_, i) => reopened.peek(`quota:${i}`)))).toEqual(
      Array(5).fill(400),
    );
    expect(await reopened.next("ids")).toBe(41);
    await reopened.close();
  });
});

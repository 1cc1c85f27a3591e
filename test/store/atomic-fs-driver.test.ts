import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorage } from "unstorage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAtomicFsDriver } from "../../server/store/atomic-fs-driver.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rp-atomic-fs-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("atomic fs driver", () => {
  it.each([true, false])("serves unstorage with one flat file per key (fsync %s)", async (fsync) => {
    const storage = createStorage({ driver: createAtomicFsDriver({ base: join(dir, "state"), fsync }) });
    await storage.setItem("a", { n: 1 });
    await storage.setItem("a:b", "nested key next to a plain one");
    await storage.setItem("a:b:c", [1, 2]);
    expect(await storage.getItem("a")).toEqual({ n: 1 });
    expect(await storage.getItem("a:b")).toBe("nested key next to a plain one");
    expect(await storage.hasItem("a:b:c")).toBe(true);
    expect(await storage.getItem("none")).toBeNull();
    expect((await storage.getKeys("a")).sort()).toEqual(["a:b", "a:b:c"]);
    expect((await readdir(join(dir, "state"))).sort()).toEqual(["a.json", "a~b.json", "a~b~c.json"]);
    await storage.removeItem("a:b");
    await storage.removeItem("a:b");
    expect((await storage.getKeys("")).sort()).toEqual(["a", "a:b:c"]);
    await storage.clear();
    expect(await readdir(join(dir, "state"))).toEqual([]);
    await storage.dispose();
  });

  it("leaves no temp files behind after many concurrent writes", async () => {
    const driver = createAtomicFsDriver({ base: dir });
    const storage = createStorage({ driver });
    await Promise.all(Array.from({ length: 200 }, (_, i) => storage.setItem(`k:${i % 10}`, { i })));
    const names = await readdir(dir);
    expect(names.filter((name) => name.startsWith("."))).toEqual([]);
    expect(names).toHaveLength(10);
  });

  it("refuses keys with dot segments before touching the disk", async () => {
    const driver = createAtomicFsDriver({ base: dir });
    expect(() => driver.getItem("..:etc:passwd", {})).toThrow(/"\." or "\.\." segments/);
    await expect(Promise.resolve().then(() => driver.setItem?.("a:..", "x", {}))).rejects.toThrow(/segments/);
    expect(await readdir(dir)).toEqual([]);
  });

  it("requires a base folder", () => {
    expect(() => createAtomicFsDriver({ base: "" })).toThrow(/base/);
  });
});

import { randomBytes } from "node:crypto";
import { type FileHandle, mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { defineDriver } from "unstorage";
import { fileNameToKey, keyToFileName, TEMP_PREFIX } from "./file-names.ts";
import { syncDir } from "./sync-dir.ts";
import { createWriteCoalescer } from "./write-coalescer.ts";

export interface AtomicFsDriverOptions {
  base: string;
  /**
   * fsync each file and the folder before a write resolves (default true). Without it a write still
   * survives the process being killed (the data is in the page cache), but not a power loss.
   */
  fsync?: boolean;
}

// pid + random tag + counter: unique among live writers, and unlike a leftover of a killed one.
const tempTag = `${process.pid}-${randomBytes(4).toString("hex")}`;
let tempCounter = 0;

/**
 * An unstorage driver that keeps one JSON file per key, flat in `base`, and replaces a file only by
 * writing a temp file in the same folder, fsyncing it and renaming it over the old one: a process
 * killed at any instant leaves the old or the new record, never a torn one (unstorage's fs driver
 * writes in place). Temp files of a killed writer remain; removeTempFiles() clears them at open.
 * Two writes of one key must not overlap (last rename wins, not last call): the file store writes
 * records only in compactions, one at a time, each key once (journal-compaction.ts).
 */
export const createAtomicFsDriver = defineDriver((options: AtomicFsDriverOptions) => {
  if (!options?.base) {
    throw new Error("Expected the `base` option of the atomic fs driver to name a folder");
  }
  const base = resolve(options.base);
  const fsync = options.fsync ?? true;
  const pathOf = (key: string): string => join(base, keyToFileName(key));
  let ready: Promise<unknown> | undefined;
  const ensureBase = (): Promise<unknown> => {
    ready ??= mkdir(base, { recursive: true });
    return ready;
  };
  // A rename is durable once the folder is synced; concurrent writes share one folder sync.
  const folderSync = createWriteCoalescer(() => syncDir(base));

  const write = async (key: string, value: string): Promise<void> => {
    const path = pathOf(key);
    await ensureBase();
    const temp = join(base, `${TEMP_PREFIX}${tempTag}-${++tempCounter}`);
    let handle: FileHandle | undefined = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(value, "utf8");
      if (fsync) {
        await handle.sync();
      }
      await handle.close();
      handle = undefined;
      await rename(temp, path);
    } catch (error) {
      await handle?.close().catch(() => {});
      await unlink(temp).catch(() => {});
      throw error;
    }
    if (fsync) {
      await folderSync.request("");
    }
  };

  return {
    name: "atomic-fs",
    options,
    async hasItem(key: string) {
      return (await readOrNull(pathOf(key))) !== null;
    },
    getItem(key: string) {
      return readOrNull(pathOf(key));
    },
    setItem(key: string, value: string) {
      return write(key, value);
    },
    async removeItem(key: string) {
      const removed = await unlink(pathOf(key)).then(
        () => true,
        (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? false : Promise.reject(error)),
      );
      if (removed && fsync) {
        await folderSync.request("");
      }
    },
    async getKeys(prefix: string) {
      const names = await readdir(base).catch((error: NodeJS.ErrnoException) =>
        error.code === "ENOENT" ? [] : Promise.reject(error),
      );
      const keys = names.map(fileNameToKey).filter((key): key is string => key !== null);
      return prefix ? keys.filter((key) => key.startsWith(prefix)) : keys;
    },
    async clear(prefix: string) {
      const names = await readdir(base).catch(() => []);
      for (const name of names) {
        const key = fileNameToKey(name);
        if (key !== null && (!prefix || key.startsWith(prefix))) {
          await unlink(join(base, name)).catch(() => {});
        }
      }
    },
    async dispose() {
      await folderSync.drain();
    },
  };
});

/** Removes temp files left by a killed writer; call only while no other process writes to `base`. */
export async function removeTempFiles(base: string): Promise<number> {
  const names = await readdir(base).catch(() => []);
  const stale = names.filter((name) => name.startsWith(TEMP_PREFIX));
  await Promise.all(stale.map((name) => unlink(join(base, name)).catch(() => {})));
  return stale.length;
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return null;
    }
    throw error;
  }
}

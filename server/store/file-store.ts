import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import pLimit from "p-limit";
import { createStorage, type Storage } from "unstorage";
import { createAtomicFsDriver, removeTempFiles } from "./atomic-fs-driver.ts";
import { acquireDirLock } from "./dir-lock.ts";
import { createLocalStore } from "./local-store.ts";
import { decodeEnvelope, type LocalEntry } from "./record-envelope.ts";
import type { Store } from "./types.ts";

export interface FileStoreOptions {
  /** The folder of the records (created when missing); keep it out of version control. */
  dir: string;
  /** fsync every write (default true); see AtomicFsDriverOptions.fsync. */
  fsync?: boolean;
  clock?: () => number;
  sweepIntervalMs?: number;
}

/**
 * The embedded default: one JSON file per key in `dir`, replaced atomically, all records mirrored in
 * memory. Single-process by design: the folder is locked with a pid file, and the mirror assumes it
 * is the only writer. Several processes need Redis.
 */
export async function createFileStore(options: FileStoreOptions): Promise<Store> {
  const dir = resolve(options.dir);
  await mkdir(dir, { recursive: true });
  const lock = await acquireDirLock(dir);
  try {
    await removeTempFiles(dir);
    const storage = createStorage({ driver: createAtomicFsDriver({ base: dir, fsync: options.fsync }) });
    const entries = await loadEntries(storage, options.clock?.() ?? Date.now());
    return createLocalStore({
      kind: "file",
      storage,
      entries,
      clock: options.clock,
      sweepIntervalMs: options.sweepIntervalMs,
      onClose: () => lock.release(),
    });
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function loadEntries(storage: Storage, now: number): Promise<Map<string, LocalEntry>> {
  const entries = new Map<string, LocalEntry>();
  const limit = pLimit(32);
  const keys = await storage.getKeys("");
  await Promise.all(
    keys.map((key) =>
      limit(async () => {
        const text = await storage.getItemRaw<string>(key);
        if (text === null) {
          return;
        }
        const entry = decodeEnvelope(key, String(text));
        if (entry.expiresAt !== null && entry.expiresAt <= now) {
          await storage.removeItem(key);
        } else {
          entries.set(key, entry);
        }
      }),
    ),
  );
  return entries;
}

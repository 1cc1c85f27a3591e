import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import pLimit from "p-limit";
import { createStorage, type Storage } from "unstorage";
import { createAtomicFsDriver, removeTempFiles } from "./atomic-fs-driver.ts";
import { acquireDirLock } from "./dir-lock.ts";
import { openJournal } from "./journal.ts";
import type { JournalStep } from "./journal-compaction.ts";
import { replayJournals } from "./journal-replay.ts";
import { createLocalStore } from "./local-store.ts";
import { decodeEnvelope, type LocalEntry } from "./record-envelope.ts";
import type { Store } from "./types.ts";

export interface FileStoreOptions {
  /** The folder of the records (created when missing); keep it out of version control. */
  dir: string;
  /** fsync every batch of changes and every record (default true); see AtomicFsDriverOptions.fsync. */
  fsync?: boolean;
  clock?: () => number;
  sweepIntervalMs?: number;
  /** Journal size that triggers a compaction into the record files; default 4 MiB. */
  journalMaxBytes?: number;
  /** Called between two steps of a compaction: crash tests kill the process there. */
  onJournalStep?: (step: JournalStep) => void;
}

const DEFAULT_JOURNAL_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The embedded default: one JSON file per key in `dir`, replaced atomically, plus a journal of the
 * changes not yet folded into those files (journal.ts); all records mirrored in memory.
 * Single-process by design: the folder is locked with a pid file, and the mirror assumes it is the
 * only writer. Several processes need Redis.
 */
export async function createFileStore(options: FileStoreOptions): Promise<Store> {
  const dir = resolve(options.dir);
  const fsync = options.fsync ?? true;
  const clock = options.clock ?? Date.now;
  const onError = (error: unknown) => console.error("[store] file:", error);
  await mkdir(dir, { recursive: true });
  const lock = await acquireDirLock(dir);
  const storage = createStorage({ driver: createAtomicFsDriver({ base: dir, fsync }) });
  try {
    await removeTempFiles(dir);
    const entries = await loadRecords(storage);
    const recovery = await replayJournals(dir, entries);
    if (recovery.skipped > 0) {
      onError(new Error(`Skipped ${recovery.skipped} damaged journal lines in ${dir} (a failed write)`));
    }
    // Expired records are dropped here; the compaction at open removes their files.
    const now = clock();
    for (const [key, entry] of entries) {
      if (entry.expiresAt !== null && entry.expiresAt <= now) {
        entries.delete(key);
        recovery.job.keys.add(key);
      }
    }
    const journal = await openJournal({
      dir,
      storage,
      entries,
      fsync,
      maxBytes: options.journalMaxBytes ?? DEFAULT_JOURNAL_MAX_BYTES,
      clock,
      recovered: recovery.job,
      onError,
      onStep: options.onJournalStep,
    });
    return createLocalStore({
      kind: "file",
      entries,
      changes: journal,
      clock,
      sweepIntervalMs: options.sweepIntervalMs,
      onError,
      async onClose() {
        await storage.dispose();
        await lock.release();
      },
    });
  } catch (error) {
    await storage.dispose().catch(() => {});
    await lock.release();
    throw error;
  }
}

/** The record files of `storage` as entries, expired ones included; throws on a torn or foreign one. */
export async function loadRecords(storage: Storage): Promise<Map<string, LocalEntry>> {
  const entries = new Map<string, LocalEntry>();
  const limit = pLimit(32);
  const keys = await storage.getKeys("");
  await Promise.all(
    keys.map((key) =>
      limit(async () => {
        const text = await storage.getItemRaw<string>(key);
        if (text !== null) {
          entries.set(key, decodeEnvelope(key, String(text)));
        }
      }),
    ),
  );
  return entries;
}

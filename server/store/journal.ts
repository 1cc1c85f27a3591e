import { type FileHandle, open, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { journalFileName } from "./file-names.ts";
import { createGroupCommit } from "./group-commit.ts";
import {
  type CompactionContext,
  type CompactionJob,
  compact,
  type JournalStep,
  mergeJobs,
} from "./journal-compaction.ts";
import { encodeChange } from "./journal-format.ts";
import type { ChangeLog } from "./local-store.ts";
import type { LocalEntry } from "./record-envelope.ts";
import { syncDir } from "./sync-dir.ts";

export interface JournalOptions {
  dir: string;
  /** The record files, the compacted form of the state (see journal-compaction.ts). */
  storage: Storage;
  /** The store's state; a batch writes each of its keys as it is in here when the batch starts. */
  entries: ReadonlyMap<string, LocalEntry>;
  /** fdatasync each batch before answering it: power-loss durability, one sync per batch. */
  fsync: boolean;
  /** Journal size that starts a new journal and folds the old one into the record files. */
  maxBytes: number;
  clock: () => number;
  /** What replay found at open: compacted before the first write, so every journal starts whole. */
  recovered: CompactionJob;
  onError: (error: unknown) => void;
  onStep?: (step: JournalStep) => void;
}

/**
 * The file store's change log: one JSON line per changed key (journal-format.ts), appended through one
 * open file with group commit, in place of a temp file and a rename per operation. A change is
 * answered once its line is in the file (in the page cache, which survives a killed process; with
 * fsync, on the disk). Journals have growing generation numbers: past `maxBytes` the next batch goes
 * to a new one and the old one is compacted into the record files in the background.
 */
export async function openJournal(options: JournalOptions): Promise<ChangeLog> {
  const { dir, entries, fsync, maxBytes, onError } = options;
  const context: CompactionContext = {
    dir,
    storage: options.storage,
    entries,
    clock: options.clock,
    fsync,
    onStep: options.onStep ?? (() => {}),
  };
  // A journal is never appended to after a restart: its tail may be torn, and a line written after a
  // torn one would be glued to it. Folding it in first also bounds the next replay.
  await compact(context, options.recovered);
  let gen = Math.max(0, ...options.recovered.gens) + 1;
  let handle = await createJournalFile(dir, gen, fsync);
  let size = 0;
  let dirty = new Set<string>();
  let backlog: CompactionJob = { keys: new Set(), gens: [] };
  let needsNewline = false;
  let rotation: Promise<void> | undefined;
  let compaction: Promise<void> | undefined;

  const startCompaction = (): void => {
    if (compaction || backlog.gens.length === 0) {
      return;
    }
    const job = backlog;
    backlog = { keys: new Set(), gens: [] };
    compaction = compact(context, job)
      .catch((error: unknown) => {
        // The journals stay and wait for the next rotation; nothing is lost, the folder just grows.
        backlog = mergeJobs(job, backlog);
        onError(error);
      })
      .finally(() => {
        compaction = undefined;
      });
  };

  // Runs between two batches (the next one waits for it), so no write is in flight on the old file.
  const rotate = async (): Promise<void> => {
    try {
      const next = await createJournalFile(dir, gen + 1, fsync);
      const previous = handle;
      backlog = mergeJobs(backlog, { keys: dirty, gens: [gen] });
      handle = next;
      gen += 1;
      size = 0;
      dirty = new Set();
      needsNewline = false;
      options.onStep?.("rotated");
      await previous.close().catch(onError);
      startCompaction();
    } catch (error) {
      onError(error);
    }
  };

  const commits = createGroupCommit(async (keys) => {
    if (rotation) {
      await rotation;
    }
    let text = needsNewline ? "\n" : "";
    for (const key of keys) {
      text += encodeChange(key, entries.get(key));
      dirty.add(key);
    }
    const buffer = Buffer.from(text, "utf8");
    // Until the whole batch is in, the file may end in a partial line: the next batch starts a new one.
    needsNewline = true;
    await writeAll(handle, buffer);
    if (fsync) {
      await handle.datasync();
    }
    needsNewline = false;
    size += buffer.length;
    if (size >= maxBytes && !compaction && !rotation) {
      rotation = rotate().finally(() => {
        rotation = undefined;
      });
    }
  });

  return {
    commit: commits.commit,
    pending: commits.pending,
    async close() {
      await commits.drain();
      await rotation;
      await compaction;
      await handle.close();
      // A cleanly closed folder holds record files only, as before the journal existed.
      await compact(context, mergeJobs(backlog, { keys: dirty, gens: [gen] }));
    },
  };
}

async function createJournalFile(dir: string, gen: number, fsync: boolean): Promise<FileHandle> {
  const path = join(dir, journalFileName(gen));
  const handle = await open(path, "ax", 0o600);
  if (fsync) {
    // Lines synced into a file whose name is not yet durable would vanish with it in a power loss.
    await syncDir(dir).catch(async (error: unknown) => {
      await handle.close().catch(() => {});
      await unlink(path).catch(() => {});
      throw error;
    });
  }
  return handle;
}

/** fs writes may be short (a full disk, a signal): write until all of `buffer` is in. */
async function writeAll(handle: FileHandle, buffer: Buffer): Promise<void> {
  for (let offset = 0; offset < buffer.length; ) {
    const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset, null);
    offset += bytesWritten;
  }
}

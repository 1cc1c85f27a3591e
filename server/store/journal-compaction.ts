import { unlink } from "node:fs/promises";
import { join } from "node:path";
import pLimit from "p-limit";
import type { Storage } from "unstorage";
import { journalFileName } from "./file-names.ts";
import { encodeEnvelope, type LocalEntry } from "./record-envelope.ts";
import { syncDir } from "./sync-dir.ts";

/** Journals to fold into the record files, and every key they touched. */
export interface CompactionJob {
  keys: Set<string>;
  gens: number[];
}

/** The points between two steps of rotation and compaction; crash tests kill the process there. */
export type JournalStep = "rotated" | "record-written" | "records-written" | "journal-removed";

export interface CompactionContext {
  dir: string;
  /** The record files (atomic fs driver): each write is a temp file renamed over the record. */
  storage: Storage;
  /** The store's state: compaction writes what a key holds now, which is never older than a journal. */
  entries: ReadonlyMap<string, LocalEntry>;
  clock: () => number;
  fsync: boolean;
  onStep: (step: JournalStep) => void;
}

/**
 * Folds journals into the record files: writes the current state of every key they touched, then
 * removes the journals, oldest first. A kill between any two steps is safe, because recovery is
 * "record files, then each remaining journal in order, last line of a key wins":
 * - a journal is removed only after every key it touched has a record holding its state as of now,
 *   which is at least as new as the journal's lines (the journal was sealed before the job started);
 * - journals go oldest first, each removal made durable (with fsync on) before the next one, so what
 *   remains is always the newest journals: an older line never lands on top of a newer one;
 * - a record may hold a state newer than any journal line (a change not yet journaled); if it was
 *   answered, its line is in a remaining journal and wins on replay, and otherwise nobody saw it.
 * Each record write is atomic on its own (temp file + rename), so no record is ever torn.
 */
export async function compact(context: CompactionContext, job: CompactionJob): Promise<void> {
  const { dir, storage, entries, clock, fsync, onStep } = context;
  // Two writes at a time: compaction shares libuv's four threads with the journal, whose writes must
  // not queue behind it; more in parallel hardly helps, the folder's metadata updates serialize.
  const limit = pLimit(2);
  await Promise.all(
    [...job.keys].map((key) =>
      limit(async () => {
        const entry = entries.get(key);
        if (entry && (entry.expiresAt === null || entry.expiresAt > clock())) {
          await storage.setItemRaw(key, encodeEnvelope(entry));
        } else {
          await storage.removeItem(key);
        }
        onStep("record-written");
      }),
    ),
  );
  onStep("records-written");
  for (const gen of [...job.gens].sort((a, b) => a - b)) {
    await unlink(join(dir, journalFileName(gen))).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") {
        throw error;
      }
    });
    if (fsync) {
      await syncDir(dir);
    }
    onStep("journal-removed");
  }
}

/** One job for both: after a failed compaction its journals wait for the next one. */
export function mergeJobs(older: CompactionJob, newer: CompactionJob): CompactionJob {
  return { keys: new Set([...older.keys, ...newer.keys]), gens: [...older.gens, ...newer.gens] };
}

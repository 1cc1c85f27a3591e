import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { journalFileName, journalGenOf } from "./file-names.ts";
import type { CompactionJob } from "./journal-compaction.ts";
import { parseJournal } from "./journal-format.ts";
import type { LocalEntry } from "./record-envelope.ts";

export interface Recovery {
  /** The journals found and every key they touched: what the first compaction must fold in. */
  job: CompactionJob;
  /** Journals that ended in a partial line: a process killed mid-write. */
  tornTails: number;
  /** Complete lines that were not changes: the rest of a write that failed. */
  skipped: number;
}

/**
 * Replays the journals in `dir` over `entries` (loaded from the record files), oldest first, so that
 * the last line of a key wins. A partial last line was never acknowledged and is dropped.
 */
export async function replayJournals(dir: string, entries: Map<string, LocalEntry>): Promise<Recovery> {
  const gens = (await readdir(dir))
    .map(journalGenOf)
    .filter((gen): gen is number => gen !== null)
    .sort((a, b) => a - b);
  const keys = new Set<string>();
  let tornTails = 0;
  let skipped = 0;
  for (const gen of gens) {
    const parsed = parseJournal(await readFile(join(dir, journalFileName(gen)), "utf8"));
    for (const { key, entry } of parsed.changes) {
      if (entry) {
        entries.set(key, entry);
      } else {
        entries.delete(key);
      }
      keys.add(key);
    }
    tornTails += parsed.tornTail ? 1 : 0;
    skipped += parsed.skipped;
  }
  return { job: { keys, gens }, tornTails, skipped };
}

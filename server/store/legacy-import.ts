import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SqliteDatabase } from "./sqlite-database.ts";

// Before the SQLite database, the embedded store was a folder of record files, one per key
// (`usage~key_ab~3.json` holding `{"value":...,"expiresAt":...}`), plus journals (`.journal-N`, one
// JSON line per change: `{"k":key,"e":expiresAt,"v":value}`, or `{"k":key}` for a removal) not yet
// folded into those files. This reads that folder, once, into a new database; it never writes there.

interface Entry {
  value: unknown;
  expiresAt: number | null;
}

export interface ImportSummary {
  records: number;
  queued: number;
  /** Files or journal lines that could not be read: a write cut short, or a stray file. */
  skipped: number;
}

/** Copies the old file store in `dir` into `db` (inside its creating transaction); null if none. */
export function importFileStore(db: SqliteDatabase, dir: string, now: number): ImportSummary | null {
  const names = readdirSync(dir);
  const records = names.filter((name) => !name.startsWith(".") && name.endsWith(".json"));
  const journals = names
    .map((name) => ({ name, gen: /^\.journal-([1-9][0-9]{0,14})$/.exec(name)?.[1] }))
    .filter((file): file is { name: string; gen: string } => file.gen !== undefined)
    .sort((a, b) => Number(a.gen) - Number(b.gen));
  if (records.length === 0 && journals.length === 0) return null;

  const entries = new Map<string, Entry>();
  let skipped = 0;
  for (const name of records) {
    const key = keyOfFileName(name);
    const entry =
      key === null ? null : toEntry(parseObject(readFileSync(join(dir, name), "utf8")), "value", "expiresAt");
    if (key === null || entry === null) skipped++;
    else entries.set(key, entry);
  }
  // Journal lines hold whole states, oldest journal first: the last line of a key wins.
  for (const { name } of journals) {
    const lines = readFileSync(join(dir, name), "utf8").split("\n");
    lines.pop(); // after the last newline: a write cut short, never acknowledged
    for (const line of lines.filter(Boolean)) {
      const change = parseObject(line);
      const key = typeof change?.k === "string" && change.k !== "" ? change.k : null;
      const entry = change && "v" in change ? toEntry(change, "v", "e") : null;
      if (key === null || (change && "v" in change && entry === null)) skipped++;
      else if (entry) entries.set(key, entry);
      else entries.delete(key);
    }
  }

  const insert = db.prepare("INSERT OR REPLACE INTO kv (key, value, expires_at) VALUES (?, ?, ?)");
  const enqueue = db.prepare("INSERT OR IGNORE INTO queue (name, id, position) VALUES (?, ?, ?)");
  let queued = 0;
  let imported = 0;
  for (const [key, { value, expiresAt }] of entries) {
    if (expiresAt !== null && expiresAt <= now) continue;
    if (key.startsWith("_queue:")) {
      // Leases of the old store's worker died with it: its in-flight ids go first, then the pending.
      const { pending = [], inflight = [] } = value as { pending?: string[]; inflight?: { id: string }[] };
      [...inflight.map((lease) => lease.id), ...pending].forEach((id, index) => {
        queued += enqueue.run(key, id, index + 1).changes;
      });
      continue;
    }
    // Counters stay SQL integers (a JS number would bind as a real), so counting goes on from them.
    insert.run(key, Number.isSafeInteger(value) ? BigInt(value as number) : JSON.stringify(value), expiresAt);
    imported++;
  }
  return { records: imported, queued, skipped };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function toEntry(
  parsed: Record<string, unknown> | null,
  valueField: string,
  expiryField: string,
): Entry | null {
  const expiresAt = parsed?.[expiryField] ?? null;
  if (!parsed || !(valueField in parsed) || (expiresAt !== null && !Number.isSafeInteger(expiresAt)))
    return null;
  return { value: parsed[valueField], expiresAt: expiresAt as number | null };
}

/** `usage~key_ab~3.json` → `usage:key_ab:3`; ":" was written "~", other bytes %XX. */
function keyOfFileName(name: string): string | null {
  const body = name.slice(0, -".json".length);
  if (!/^(?:[a-z0-9_.~-]|%[0-9A-F]{2})+$/.test(body)) return null;
  try {
    return decodeURIComponent(body.replaceAll("~", "%3A"));
  } catch {
    return null;
  }
}

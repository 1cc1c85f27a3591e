import type { LocalEntry } from "./record-envelope.ts";

/** One line of a journal: the whole state of a key after a change (null: removed), never a delta. */
export interface JournalChange {
  key: string;
  entry: LocalEntry | null;
}

export interface ParsedJournal {
  changes: JournalChange[];
  /** The bytes after the last newline: a write cut short by a kill, never acknowledged. */
  tornTail: boolean;
  /** Complete lines that are not a change: a write that failed half-way, followed by later ones. */
  skipped: number;
}

/**
 * The journal line of `key`'s state: `{"k":key,"e":expiresAt,"v":value}` or `{"k":key}` once removed.
 * Lines hold states, not increments, so replaying a line twice, or a line older than the record file,
 * can never count twice. `entry.json` is JSON text, which has no raw newline.
 * @example encodeChange("hits", { json: "7", expiresAt: null }) === '{"k":"hits","e":null,"v":7}\n'
 */
export function encodeChange(key: string, entry: LocalEntry | undefined): string {
  return entry === undefined
    ? `{"k":${JSON.stringify(key)}}\n`
    : `{"k":${JSON.stringify(key)},"e":${entry.expiresAt ?? "null"},"v":${entry.json}}\n`;
}

/**
 * The changes of a journal's text, in order. Every line is a JSON object that ends with "}" and then
 * "\n", so a line cut anywhere by a kill (or zero-filled by a power loss) fails to parse or lacks its
 * newline: it is dropped, never misread. Lines after a bad one still count (see journal.ts: a batch
 * after a failed write starts on a new line).
 */
export function parseJournal(text: string): ParsedJournal {
  const lines = text.split("\n");
  const tail = lines.pop() ?? "";
  const changes: JournalChange[] = [];
  let skipped = 0;
  for (const line of lines) {
    if (line === "") {
      continue;
    }
    const change = decodeLine(line);
    if (change) {
      changes.push(change);
    } else {
      skipped++;
    }
  }
  return { changes, tornTail: tail !== "", skipped };
}

function decodeLine(line: string): JournalChange | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return null;
  }
  const { k: key, e: expiresAt, v: value } = parsed as { k?: unknown; e?: unknown; v?: unknown };
  if (typeof key !== "string" || key === "") {
    return null;
  }
  if (!("v" in parsed)) {
    return "e" in parsed ? null : { key, entry: null };
  }
  if (expiresAt !== null && !Number.isSafeInteger(expiresAt)) {
    return null;
  }
  return { key, entry: { json: JSON.stringify(value), expiresAt: expiresAt as number | null } };
}

// Record files are flat in one folder: a key maps to one name and back, and never to a path. A flat
// folder also avoids the clash of unstorage's fs driver, where key "a" (a file) and "a:b" (a file in
// folder "a") cannot both exist.
const LITERAL = /^[a-z0-9_.-]$/;
const SUFFIX = ".json";
const MAX_NAME_BYTES = 255;

/** Names of the store's own files start with "."; record names never do. */
export const TEMP_PREFIX = ".tmp-";
export const LOCK_NAME = ".lock";
const JOURNAL_PREFIX = ".journal-";

/** The journal of generation `gen` (see journal.ts): generations only grow, so names never come back. */
export function journalFileName(gen: number): string {
  return `${JOURNAL_PREFIX}${gen}`;
}

/** The generation of a journal file name, or null for any other file. */
export function journalGenOf(name: string): number | null {
  const digits = name.startsWith(JOURNAL_PREFIX) ? name.slice(JOURNAL_PREFIX.length) : "";
  return /^[1-9][0-9]{0,14}$/.test(digits) ? Number(digits) : null;
}

/**
 * The file name of an unstorage key: ":" becomes "~", `[a-z0-9_.-]` stays, any other byte (and a
 * leading ".") becomes %XX, then ".json". Injective even on case-insensitive file systems, because
 * only lowercase letters stay literal and %XX always uses uppercase hex.
 * @example keyToFileName("usage:ab12:2026-11-22") === "usage~ab12~2026-11-22.json"
 */
export function keyToFileName(key: string): string {
  const segments = key.split(":");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    throw new Error(`Expected a key without empty, "." or ".." segments, got ${JSON.stringify(key)}`);
  }
  let name = "";
  for (const char of key) {
    if (char === ":") {
      name += "~";
    } else if (LITERAL.test(char) && !(char === "." && name === "")) {
      name += char;
    } else {
      for (const byte of Buffer.from(char, "utf8")) {
        name += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
      }
    }
  }
  name += SUFFIX;
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    throw new Error(
      `Expected a key whose file name fits in ${MAX_NAME_BYTES} bytes, got ${JSON.stringify(key)}`,
    );
  }
  return name;
}

/** The key of a record file name, or null for any other file (temp files, the lock, strays). */
export function fileNameToKey(name: string): string | null {
  if (name.startsWith(".") || !name.endsWith(SUFFIX) || name.length === SUFFIX.length) {
    return null;
  }
  const body = name.slice(0, -SUFFIX.length);
  if (!/^(?:[a-z0-9_.~-]|%[0-9A-F]{2})*$/.test(body)) {
    return null;
  }
  try {
    const key = decodeURIComponent(body.replaceAll("~", "%3A"));
    return keyToFileName(key) === name ? key : null;
  } catch {
    return null;
  }
}

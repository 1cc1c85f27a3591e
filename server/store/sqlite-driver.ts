import { defineDriver } from "unstorage";
import type { SqliteDatabase } from "./sqlite-database.ts";

/** The statements of the `kv` table's plain records, shared by the driver and the store's writes. */
export function prepareKvStatements(db: SqliteDatabase) {
  const live = "(expires_at IS NULL OR expires_at > ?)";
  return {
    get: db.prepare<[string, number], { value: string | number }>(
      `SELECT value FROM kv WHERE key = ? AND ${live}`,
    ),
    set: db.prepare<[string, string, number | null]>(
      "INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?) " +
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at",
    ),
    remove: db.prepare<[string]>("DELETE FROM kv WHERE key = ?"),
    // Keys are compared as text: every key below "a" starts with "a:", so lies in ["a:", "a;").
    keysBelow: db
      .prepare<[string, string, number], string>(
        `SELECT key FROM kv WHERE key >= ? AND key < ? AND ${live} ORDER BY key`,
      )
      .pluck(),
    allKeys: db.prepare<[number], string>(`SELECT key FROM kv WHERE ${live} ORDER BY key`).pluck(),
  };
}

export type KvStatements = ReturnType<typeof prepareKvStatements>;

export interface SqliteDriverOptions {
  kv: KvStatements;
  clock: () => number;
}

/**
 * unstorage's key-value face over the `kv` table: plain get, set (with a TTL in seconds), remove and
 * list. Values are the JSON text the store hands in; a record past its `expires_at` reads as absent
 * and is deleted by the store's sweep. Counters and queues are SQL statements of the store itself,
 * and so are the store's own writes of records (grouped in its commits; see sqlite-store.ts).
 */
export const createSqliteDriver = defineDriver((options: SqliteDriverOptions) => {
  const { kv, clock } = options;
  const { get, set, remove, keysBelow, allKeys } = kv;

  const read = (key: string): string | null => {
    const row = get.get(key, clock());
    return row === undefined ? null : String(row.value);
  };
  return {
    name: "research-picks-sqlite",
    options,
    hasItem: (key) => read(key) !== null,
    getItem: read,
    getItemRaw: read,
    setItem(key, value, opts) {
      const ttl = (opts as { ttl?: number }).ttl;
      set.run(key, value, ttl === undefined ? null : clock() + ttl * 1000);
    },
    removeItem(key) {
      remove.run(key);
    },
    getKeys(base = "") {
      const prefix = base.endsWith(":") ? base.slice(0, -1) : base;
      return prefix === "" ? allKeys.all(clock()) : keysBelow.all(`${prefix}:`, `${prefix};`, clock());
    },
  };
});

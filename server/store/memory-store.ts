import { createSqliteStore } from "./sqlite-store.ts";
import type { Store } from "./types.ts";

export interface MemoryStoreOptions {
  clock?: () => number;
}

/**
 * A store that forgets everything when the process ends, for tests and throwaway runs: a private
 * in-memory SQLite database, so it runs the very statements of the embedded store.
 */
export async function createMemoryStore(options: MemoryStoreOptions = {}): Promise<Store> {
  return createSqliteStore({ path: ":memory:", kind: "memory", ...options });
}

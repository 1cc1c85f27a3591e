import { createLocalStore } from "./local-store.ts";
import type { Store } from "./types.ts";

export interface MemoryStoreOptions {
  clock?: () => number;
  sweepIntervalMs?: number;
}

/** A store that forgets everything when the process ends: for tests and throwaway runs. */
export async function createMemoryStore(options: MemoryStoreOptions = {}): Promise<Store> {
  return createLocalStore({ kind: "memory", ...options });
}

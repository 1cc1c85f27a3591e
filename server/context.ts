import type { SnapshotCache } from "./snapshot-cache.ts";

/** Everything the HTTP app needs, passed in so tests can build it in-process. */
export interface AppContext {
  version: string;
  snapshots: SnapshotCache;
  log: (message: string) => void;
}

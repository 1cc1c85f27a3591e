// Why a reader's pending library items are still pending, as the daily job last found (pending-lookup.ts)
// and the profile's export tells: one record per reader, under its prefix, so erasure takes it too.

import { readerPrefix } from "./reader-store.ts";

export const lookupsKey = (keyId: string) => `${readerPrefix(keyId)}:lookups`;

/** By arXiv id: when the daily job looked, and what it found. */
export interface PendingReason {
  at: string;
  reason: string;
  /** When arXiv was last asked for the id (absent: never): the least recently asked go first. */
  asked_at?: string;
  /** arXiv did not know the id when last asked: it is asked again only after UNKNOWN_RETRY_DAYS. */
  unknown?: boolean;
}

import pLimit from "p-limit";
import { type BoardRow, compareBoardRows } from "../../pipeline/domain/submission.ts";
import type { Store } from "../store/types.ts";
import { BOARD_PREFIX, BOARD_VERSION_KEY } from "./submission-records.ts";

export interface BoardCache {
  /** Every scored submission, best first. One store read when nothing changed since the last call. */
  rows(): Promise<readonly BoardRow[]>;
}

/**
 * The leaderboard sorted in memory, rebuilt from the stored rows only when the board's version in the
 * store changed: a worker in any process writes its row, then a new version, so every process sees it.
 */
export function createBoardCache(store: Store): BoardCache {
  let cached: { version: string | null; rows: readonly BoardRow[] } | null = null;
  let building: { version: string | null; promise: Promise<readonly BoardRow[]> } | null = null;
  const limit = pLimit(16);

  const build = async (version: string | null): Promise<readonly BoardRow[]> => {
    const keys = await store.getKeys(BOARD_PREFIX);
    const rows = await Promise.all(keys.map((key) => limit(() => store.getItem<BoardRow>(key))));
    const sorted = rows.filter((row): row is BoardRow => row !== null).sort(compareBoardRows);
    cached = { version, rows: sorted };
    return sorted;
  };

  return {
    async rows() {
      const version = await store.getItem<string>(BOARD_VERSION_KEY);
      if (cached && cached.version === version) return cached.rows;
      if (building?.version !== version) {
        const promise = build(version).finally(() => {
          if (building?.promise === promise) building = null;
        });
        building = { version, promise };
      }
      return building.promise;
    },
  };
}

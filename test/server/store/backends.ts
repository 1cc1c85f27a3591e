import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import { createRedisStore } from "../../../server/store/redis-store.ts";
import { createSqliteStore } from "../../../server/store/sqlite-store.ts";
import type { Store, StoreKind } from "../../../server/store/types.ts";
import { type RedisServer, redisSkipReason, startRedis } from "../../helpers/redis.ts";

export interface OpenedStore {
  store: Store;
  cleanup(): Promise<void>;
}

export interface Backend {
  kind: StoreKind;
  /** Why this backend cannot run here (only: redis-server missing), or null. */
  skip: string | null;
  open(): Promise<OpenedStore>;
}

/**
 * The three backends of the contract suite. Call at the top of a test file: it registers the hooks
 * that start one redis-server for the file (each store gets its own key prefix).
 */
export function useBackends(): Backend[] {
  const skip = redisSkipReason();
  let redis: RedisServer | undefined;
  let prefixes = 0;
  beforeAll(async () => {
    if (skip) {
      console.warn(skip);
    } else {
      redis = await startRedis();
    }
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return [
    {
      kind: "memory",
      skip: null,
      async open() {
        const store = await createMemoryStore();
        return { store, cleanup: () => store.close() };
      },
    },
    {
      kind: "sqlite",
      skip: null,
      async open() {
        const dir = await mkdtemp(join(tmpdir(), "rp-store-"));
        const store = createSqliteStore({ path: join(dir, "picks.db") });
        return {
          store,
          async cleanup() {
            await store.close();
            await rm(dir, { recursive: true, force: true });
          },
        };
      },
    },
    {
      kind: "redis",
      skip,
      async open() {
        if (!redis) {
          throw new Error("redis-server did not start");
        }
        const store = await createRedisStore({ url: redis.url, prefix: `t${process.pid}-${++prefixes}` });
        return { store, cleanup: () => store.close() };
      },
    },
  ];
}

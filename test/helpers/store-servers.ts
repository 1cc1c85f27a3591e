import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll } from "vitest";
import type { AppContext } from "../../server/context.ts";
import { createRedisStore } from "../../server/store/redis-store.ts";
import { createSqliteStore } from "../../server/store/sqlite-store.ts";
import type { Store } from "../../server/store/types.ts";
import { type Call, clientFor } from "./app-client.ts";
import { testContext } from "./context.ts";
import type { RankedSample } from "./ranked-sample.ts";
import { type RedisServer, startRedis } from "./redis.ts";

/** One server of a test over a real store: its context and a client of it. */
export interface StoreServer {
  context: AppContext;
  call: Call;
  close: () => Promise<void>;
}

export interface ServersOverRedis {
  redis: RedisServer;
  one: StoreServer;
  two: StoreServer;
  stop: () => Promise<void>;
}

// Two servers sharing one Redis as a cluster's processes do, the first called in-process, the second over a real port.
async function startServersOverRedis(sample: RankedSample): Promise<ServersOverRedis> {
  const redis = await startRedis();
  const servers: StoreServer[] = [];
  const stop = async () => {
    for (const server of servers) {
      await server.close();
      await server.context.store.close();
    }
    await redis.stop();
  };
  try {
    for (const mode of ["in-process", "real port"] as const) {
      const store = await createRedisStore({ url: redis.url, prefix: "rp" });
      const context = await testContext(sample.snapshots, { store, relevance: sample.relevance });
      servers.push({ context, ...(await clientFor(mode, context)) });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { redis, one: servers[0] as StoreServer, two: servers[1] as StoreServer, stop };
}

// The two servers over one Redis for a describe block: started before its tests, stopped after; read its fields inside a test.
export function useServersOverRedis(sample: RankedSample): ServersOverRedis {
  const cluster = {} as ServersOverRedis;
  beforeAll(async () => {
    Object.assign(cluster, await startServersOverRedis(sample));
  });
  afterAll(() => cluster.stop?.());
  return cluster;
}

// Runs `use` on an in-process server over a fresh SQLite file, for tests that read the file itself; the file goes after.
export async function withSqliteServer(
  sample: RankedSample,
  use: (server: StoreServer & { store: Store; path: string }) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "rp-sqlite-"));
  const path = join(dir, "picks.db");
  const store = createSqliteStore({ path });
  try {
    const context = await testContext(sample.snapshots, { store, relevance: sample.relevance });
    const client = await clientFor("in-process", context);
    try {
      await use({ context, ...client, store, path });
    } finally {
      await client.close();
    }
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

// The keys of a SQLite store's rows LIKE `pattern`, read from its file on a connection of their own.
export function sqliteKeys(path: string, pattern: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT key FROM kv WHERE key LIKE ?").pluck().all(pattern) as string[];
  } finally {
    db.close();
  }
}

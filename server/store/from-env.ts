import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importFileStore } from "./legacy-import.ts";
import { createMemoryStore } from "./memory-store.ts";
import { createSqliteStore } from "./sqlite-store.ts";
import type { Store, StoreKind } from "./types.ts";

export interface StoreEnv {
  /** "memory", "sqlite" or "redis" ("file", the older name, means "sqlite"); default: "redis" when REDIS_URL is set, else "sqlite". */
  STATE_STORE?: string;
  /** Folder of the embedded store's database, relative to `rootDir`; default ".state" (git-ignored). */
  STATE_DIR?: string;
  REDIS_URL?: string;
  /** Prefix of every Redis key; default "rp". */
  REDIS_PREFIX?: string;
  /** "1" for `synchronous=FULL`: every commit survives a power loss too, at one fsync each. */
  STATE_FSYNC?: string;
}

export interface StoreFromEnvOptions {
  /** What STATE_DIR is relative to; default the repository root. */
  rootDir?: string;
  clock?: () => number;
  /** Where the import of an older state folder is reported; default stderr. */
  log?: (line: string) => void;
  /** SQLite: WAL checkpoints on a worker thread, off the thread that answers requests. */
  checkpointOffThread?: boolean;
}

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DATABASE_NAME = "picks.db";

/** The embedded store's folder: STATE_DIR (default `.state`) relative to `rootDir`. */
function stateDir(env: StoreEnv, rootDir = REPO_ROOT): string {
  return resolve(rootDir, env.STATE_DIR?.trim() || ".state");
}

/**
 * Whether servers keep state that the daily job should write to: Redis, or an embedded database that
 * already exists. The job alone, on a machine without a server, creates none (and then there are no
 * webhooks to tell and no firms to build views for).
 */
export function serversStoreExists(env: StoreEnv, rootDir = REPO_ROOT): boolean {
  const kind = env.STATE_STORE?.trim() || (env.REDIS_URL?.trim() ? "redis" : "sqlite");
  if (kind === "memory") return false;
  return kind === "redis" || existsSync(join(stateDir(env, rootDir), DATABASE_NAME));
}

/** Picks and opens the store that the environment asks for. */
export async function createStoreFromEnv(env: StoreEnv, options: StoreFromEnvOptions = {}): Promise<Store> {
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  const kind = parseKind(env.STATE_STORE?.trim() || (redisUrl ? "redis" : "sqlite"));
  switch (kind) {
    case "memory":
      return createMemoryStore({ clock: options.clock });
    case "sqlite": {
      const dir = stateDir(env, options.rootDir);
      const clock = options.clock ?? Date.now;
      const log = options.log ?? ((line: string) => console.error(line));
      return createSqliteStore({
        path: join(dir, DATABASE_NAME),
        clock,
        fsync: ["1", "true"].includes(env.STATE_FSYNC?.trim() ?? ""),
        checkpointOffThread: options.checkpointOffThread,
        // A folder of the file store that came before: copied once, when the database is created.
        onCreate(db) {
          const imported = importFileStore(db, dir, clock());
          if (imported) {
            log(
              `[store] imported ${imported.records} records and ${imported.queued} queued submissions ` +
                `from the file store in ${dir} into ${DATABASE_NAME}` +
                (imported.skipped ? `; skipped ${imported.skipped} unreadable entries` : "") +
                "; the old files are left as they were",
            );
          }
        },
      });
    }
    case "redis": {
      if (!redisUrl) {
        throw new Error("Expected REDIS_URL to be set when STATE_STORE is `redis`");
      }
      // Imported only for Redis: the client is a tenth of a server's start-up otherwise.
      const { createRedisStore } = await import("./redis-store.ts");
      return createRedisStore({ url: redisUrl, prefix: env.REDIS_PREFIX?.trim() || undefined });
    }
  }
}

function parseKind(value: string): StoreKind {
  if (value === "memory" || value === "sqlite" || value === "redis") return value;
  if (value === "file") return "sqlite";
  throw new Error(`Expected STATE_STORE to be \`memory\`, \`sqlite\` or \`redis\`, got \`${value}\``);
}

import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileStore } from "./file-store.ts";
import { createMemoryStore } from "./memory-store.ts";
import { createRedisStore } from "./redis-store.ts";
import type { Store, StoreKind } from "./types.ts";

export interface StoreEnv {
  /** "memory", "file" or "redis"; default: "redis" when REDIS_URL is set, else "file". */
  STATE_STORE?: string;
  /** Folder of the file store, relative to `rootDir`; default ".state" (git-ignored). */
  STATE_DIR?: string;
  REDIS_URL?: string;
  /** Prefix of every Redis key; default "rp". */
  REDIS_PREFIX?: string;
  /**
   * "1" to fsync the file store's journal once per batch of changes (group commit), and each record
   * file it compacts into. Off by default: a write in the page cache already survives a killed
   * process; fsync adds power-loss durability at a few ms a batch on these disks.
   */
  STATE_FSYNC?: string;
}

export interface StoreFromEnvOptions {
  /** What STATE_DIR is relative to; default the repository root. */
  rootDir?: string;
  clock?: () => number;
}

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The file store's folder: STATE_DIR (default `.state`) relative to `rootDir`. */
export function fileStoreDir(env: StoreEnv, rootDir = REPO_ROOT): string {
  return resolve(rootDir, env.STATE_DIR?.trim() || ".state");
}

/** Picks and opens the store that the environment asks for. */
export async function createStoreFromEnv(env: StoreEnv, options: StoreFromEnvOptions = {}): Promise<Store> {
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  const kind = parseKind(env.STATE_STORE?.trim() || (redisUrl ? "redis" : "file"));
  switch (kind) {
    case "memory":
      return createMemoryStore({ clock: options.clock });
    case "file":
      return createFileStore({
        dir: fileStoreDir(env, options.rootDir),
        clock: options.clock,
        fsync: env.STATE_FSYNC?.trim() === "1" || env.STATE_FSYNC?.trim() === "true",
      });
    case "redis":
      if (!redisUrl) {
        throw new Error("Expected REDIS_URL to be set when STATE_STORE is `redis`");
      }
      return createRedisStore({ url: redisUrl, prefix: env.REDIS_PREFIX?.trim() || undefined });
  }
}

function parseKind(value: string): StoreKind {
  if (value === "memory" || value === "file" || value === "redis") {
    return value;
  }
  throw new Error(`Expected STATE_STORE to be \`memory\`, \`file\` or \`redis\`, got \`${value}\``);
}

import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Store } from "./types.ts";

/** How long the lock holds if its holder dies; longer than the work ever takes. */
const LOCK_TTL_SECONDS = 10;
/** How long to wait for the lock before giving up. */
const LOCK_WAIT_MS = 5_000;

/**
 * Runs `work` while holding the lock `key` (a set-if-absent record with a TTL), so that a check and
 * the write it allows (a count below a limit, then a new record) run one at a time across every
 * process on the store. Null when the lock was not had within LOCK_WAIT_MS: busy, try again.
 */
export async function withStoreLock<T>(store: Store, key: string, work: () => Promise<T>): Promise<T | null> {
  const token = randomBytes(12).toString("hex");
  const deadline = performance.now() + LOCK_WAIT_MS;
  while (!(await store.setIfAbsent(key, token, { ttlSeconds: LOCK_TTL_SECONDS }))) {
    if (performance.now() >= deadline) return null;
    await sleep(2 + Math.floor(Math.random() * 10));
  }
  try {
    return await work();
  } finally {
    // Not ours any more only if the work outlived the TTL and another holder took it.
    if ((await store.getItem<string>(key)) === token) await store.removeItem(key);
  }
}

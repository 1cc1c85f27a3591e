import {
  assertCount,
  assertEpochMs,
  assertKey,
  assertPrefix,
  assertTtl,
  isReservedKey,
  queueKey,
  sequenceKey,
  toCount,
  toJson,
} from "./keys.ts";
import { createLocalQueue } from "./local-queue.ts";
import type { LocalEntry } from "./record-envelope.ts";
import type { ConsumeResult, SetOptions, Store } from "./types.ts";

/** Makes the changes of the Map durable: the file store's journal (journal.ts). */
export interface ChangeLog {
  /** Call right after `key` changed in the Map; resolves once that state (or a later one) is durable. */
  commit(key: string): Promise<void>;
  /** Settles (never rejects) once the latest commit of `key` has; undefined when none is pending. */
  pending(key: string): Promise<void> | undefined;
  /** Makes every change durable and releases the files; no commit may follow. */
  close(): Promise<void>;
}

export interface LocalStoreOptions {
  kind: "memory" | "file";
  /** Where every change is made durable before the operation resolves; none for the memory store. */
  changes?: ChangeLog;
  /** The records already durable (the file store loads them at open). */
  entries?: Map<string, LocalEntry>;
  clock?: () => number;
  /** How often expired records are deleted; 0 turns the sweep off. Default 60 s. */
  sweepIntervalMs?: number;
  onError?: (error: unknown) => void;
  onClose?: () => Promise<void>;
}

const DONE: Promise<void> = Promise.resolve();

/**
 * The store of one process: every record lives in a Map. Each operation checks and changes the Map
 * synchronously, which makes it atomic in the process without a lock, and then waits until the change
 * log holds that change (or a later one) before answering, so an answered count is durable. Reads of
 * a key also wait for its pending change, so nobody sees a state that a crash could take back.
 */
export function createLocalStore(options: LocalStoreOptions): Store {
  const { kind, changes } = options;
  const entries = options.entries ?? new Map<string, LocalEntry>();
  const clock = options.clock ?? Date.now;
  const onError = options.onError ?? ((error: unknown) => console.error(`[store] ${kind}:`, error));
  let closed = false;
  const commit = (key: string): Promise<void> => (changes ? changes.commit(key) : DONE);

  const assertOpen = (): void => {
    if (closed) {
      throw new Error(`The ${kind} store is closed`);
    }
  };
  const live = (key: string): LocalEntry | undefined => {
    const entry = entries.get(key);
    return entry && (entry.expiresAt === null || entry.expiresAt > clock()) ? entry : undefined;
  };
  const put = (key: string, entry: LocalEntry): Promise<void> => {
    entries.set(key, entry);
    return commit(key);
  };
  const settled = async <T>(key: string, value: T): Promise<T> => {
    await changes?.pending(key);
    return value;
  };
  const expiryOf = (opts: SetOptions | undefined): number | null => {
    const ttl = assertTtl(opts);
    return ttl === undefined ? null : clock() + ttl * 1000;
  };

  const sweep = async (): Promise<void> => {
    const now = clock();
    const expired = [...entries].filter(([, entry]) => entry.expiresAt !== null && entry.expiresAt <= now);
    await Promise.all(
      expired.map(([key]) => {
        entries.delete(key);
        return commit(key).catch(onError);
      }),
    );
  };
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  const timer = sweepIntervalMs > 0 ? setInterval(() => void sweep(), sweepIntervalMs) : undefined;
  timer?.unref();

  return {
    kind,
    async getItem<T>(key: string): Promise<T | null> {
      assertOpen();
      const entry = live(assertKey(key));
      return settled(key, entry ? (JSON.parse(entry.json) as T) : null);
    },
    async setItem(key, value, opts) {
      assertOpen();
      await put(assertKey(key), { json: toJson(key, value), expiresAt: expiryOf(opts) });
    },
    async removeItem(key) {
      assertOpen();
      entries.delete(assertKey(key));
      await commit(key);
    },
    async getKeys(prefix) {
      assertOpen();
      const base = assertPrefix(prefix) === "" ? "" : `${prefix}:`;
      const keys: string[] = [];
      for (const key of entries.keys()) {
        if ((base ? key.startsWith(base) : !isReservedKey(key)) && live(key)) {
          keys.push(key);
        }
      }
      return keys.sort();
    },
    async consume(key, limit, expiresAt): Promise<ConsumeResult> {
      assertOpen();
      assertKey(key);
      assertCount("limit", limit);
      assertEpochMs("expiresAt", expiresAt);
      const entry = live(key);
      const count = entry ? toCount(key, entry.json) : 0;
      if (count >= limit) {
        return settled(key, { allowed: false, count });
      }
      await put(key, { json: String(count + 1), expiresAt: entry ? entry.expiresAt : expiresAt });
      return { allowed: true, count: count + 1 };
    },
    async peek(key) {
      assertOpen();
      const entry = live(assertKey(key));
      return settled(key, entry ? toCount(key, entry.json) : 0);
    },
    async next(sequence) {
      assertOpen();
      const key = sequenceKey(sequence);
      const entry = live(key);
      const value = (entry ? toCount(key, entry.json) : 0) + 1;
      await put(key, { json: String(value), expiresAt: null });
      return value;
    },
    async setIfAbsent(key, value, opts) {
      assertOpen();
      if (live(assertKey(key))) {
        return settled(key, false);
      }
      await put(key, { json: toJson(key, value), expiresAt: expiryOf(opts) });
      return true;
    },
    queue(name) {
      const key = queueKey(name);
      return createLocalQueue({
        clock,
        read: () => {
          assertOpen();
          return live(key)?.json ?? null;
        },
        write: (json) => put(key, { json, expiresAt: null }),
        settled: () => settled(key, undefined),
      });
    },
    async ping() {
      return !closed;
    },
    async close() {
      if (closed) {
        return;
      }
      closed = true;
      clearInterval(timer);
      try {
        await changes?.close();
      } finally {
        await options.onClose?.();
      }
    },
  };
}

import type { Redis } from "ioredis";
import { createStorage } from "unstorage";
import redisDriver from "unstorage/drivers/redis";
import { joinConsumes } from "./joined-consumes.ts";
import {
  assertAmount,
  assertCount,
  assertEpochMs,
  assertKey,
  assertPrefix,
  assertQueueId,
  assertTtl,
  queueKey,
  sequenceKey,
  toCount,
  toJson,
} from "./keys.ts";
import { createRedisQueue } from "./redis-queue.ts";
import { ALL_SCRIPTS, CONSUME, loadScripts, runScript, SET_IF_ABSENT_WITH } from "./redis-script.ts";
import { storageRecords } from "./storage-records.ts";
import type { Store } from "./types.ts";

export interface RedisStoreOptions {
  url: string;
  /** Prefix of every Redis key, so that several services can share one database. Default "rp". */
  prefix?: string;
  /** How long ping() waits for PONG. Default 1000 ms. */
  pingTimeoutMs?: number;
  onError?: (error: Error) => void;
}

/**
 * State shared by every process that uses the same Redis. Plain records go through unstorage's
 * redis driver; counters, sequences, set-if-absent and the queue use that driver's ioredis client
 * directly (INCR, SET NX, Lua scripts), one round trip each and atomic across processes.
 */
export async function createRedisStore(options: RedisStoreOptions): Promise<Store> {
  const prefix = options.prefix ?? "rp";
  if (prefix !== "") {
    assertPrefix(prefix);
  }
  const driver = redisDriver({ url: options.url, base: prefix, maxRetriesPerRequest: 3 });
  const storage = createStorage({ driver });
  const client = driver.getInstance?.() as Redis;
  const onError = options.onError ?? ((error: Error) => console.error("[store] redis:", error.message));
  client.on("error", onError);
  const redisKey = (key: string): string => (prefix ? `${prefix}:${key}` : key);
  const pingTimeoutMs = options.pingTimeoutMs ?? 1000;
  let closed = false;
  const assertOpen = (): void => {
    if (closed) {
      throw new Error("The redis store is closed");
    }
  };

  try {
    await loadScripts(client, ALL_SCRIPTS);
  } catch (error) {
    client.disconnect();
    throw new Error(`Expected Redis at ${redactUrl(options.url)} to answer`, { cause: error });
  }

  // A turn's consumes of one counter go as one script call (each answered as if alone, in order),
  // sent in the next check phase; close() waits for those asked before it.
  const deferred = new Set<Promise<unknown>>();
  const nextCheckPhase = <T>(work: () => Promise<T>): Promise<T> => {
    const done = new Promise<T>((resolve, reject) => setImmediate(() => work().then(resolve, reject)));
    const settled: Promise<unknown> = done.then(
      () => deferred.delete(settled),
      () => deferred.delete(settled),
    );
    deferred.add(settled);
    return done;
  };
  const consume = joinConsumes(nextCheckPhase, async (key, limit, expiresAt, amounts) => {
    const answers = await runScript(client, CONSUME, [key], [limit, expiresAt, ...amounts]);
    if (!Array.isArray(answers) || answers.length !== 2 * amounts.length) {
      throw new Error(
        `Expected ${2 * amounts.length} numbers from the consume script, got ${String(answers)}`,
      );
    }
    return amounts.map((_, index) => ({
      allowed: answers[2 * index] === 1,
      count: Number(answers[2 * index + 1]),
    }));
  });

  return {
    kind: "redis",
    ...storageRecords(storage, assertOpen),
    async consume(key, limit, expiresAt, amount = 1) {
      assertOpen();
      return consume(
        redisKey(assertKey(key)),
        assertCount("limit", limit),
        assertEpochMs("expiresAt", expiresAt),
        assertAmount(amount),
      );
    },
    async removeBelow(prefix) {
      assertOpen();
      const base = redisKey(assertKey(prefix));
      const found = new Set<string>([base]);
      // SCAN, not KEYS: it never blocks the server for the whole keyspace. Store keys hold no glob
      // characters (see keys.ts), so the pattern matches exactly the keys below the prefix.
      let cursor = "0";
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${base}:*`, "COUNT", 500);
        for (const key of keys) found.add(key);
        cursor = next;
      } while (cursor !== "0");
      return client.del(...found);
    },
    async getItems<T>(keys: readonly string[]): Promise<(T | null)[]> {
      assertOpen();
      const targets = keys.map((key) => redisKey(assertKey(key)));
      if (targets.length === 0) return [];
      // The texts the redis driver wrote for these keys, read as its getItemRaw reads them.
      const texts = await client.mget(...targets);
      return texts.map((text) => (text === null ? null : (JSON.parse(text) as T)));
    },
    async peek(key) {
      assertOpen();
      const text = await client.get(redisKey(assertKey(key)));
      return text === null ? 0 : toCount(key, text);
    },
    async next(sequence) {
      assertOpen();
      return client.incr(redisKey(sequenceKey(sequence)));
    },
    async setIfAbsent(key, value, opts) {
      assertOpen();
      const ttl = assertTtl(opts);
      const target = redisKey(assertKey(key));
      const json = toJson(key, value);
      const reply =
        ttl === undefined
          ? await client.set(target, json, "NX")
          : await client.set(target, json, "EX", ttl, "NX");
      return reply === "OK";
    },
    async setIfAbsentWith(key, value, also, opts) {
      assertOpen();
      const records = [{ key, value, ...opts }, ...(also.records ?? [])];
      const keys = records.map((write) => redisKey(assertKey(write.key)));
      const args: (string | number)[] = [records.length - 1];
      for (const write of records) args.push(toJson(write.key, write.value), assertTtl(write) ?? 0);
      for (const { queue, id } of also.pushes ?? []) {
        for (const part of ["members", "pending", "delayed"] as const)
          keys.push(redisKey(queueKey(queue, part)));
        args.push(assertQueueId(id));
      }
      return (await runScript(client, SET_IF_ABSENT_WITH, keys, args)) === 1;
    },
    queue(name) {
      assertOpen();
      return createRedisQueue(client, name, redisKey);
    },
    async ping() {
      if (closed) {
        return false;
      }
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve("timeout"), pingTimeoutMs);
      });
      try {
        return (await Promise.race([client.ping(), timeout])) === "PONG";
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (closed) {
        return;
      }
      closed = true;
      await Promise.all(deferred);
      await client.quit().catch(() => client.disconnect());
    },
  };
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}

// Measures the hot-path operations of each store: `node --import tsx bench/store-ops.ts [calls]`
// (Redis rows need redis-server). "sequential" awaits each call (latency); "50 in flight" keeps 50
// calls pending at all times, like 50 connections (cost per call). "many keys" spreads consume and
// setItem over 1,000 keys; setIfAbsent there creates a new key every call.
// The file store that SQLite replaced cost 1-7 µs/op in flight and 50-130 sequential with its journal;
// before the journal, 28-990 in flight.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryStore } from "../server/store/memory-store.ts";
import { createRedisStore } from "../server/store/redis-store.ts";
import { createSqliteStore } from "../server/store/sqlite-store.ts";
import type { Store } from "../server/store/types.ts";
import { redisSkipReason, startRedis } from "../test/helpers/redis.ts";

const IN_FLIGHT = 50;
const MANY = 1_000;
const expiresAt = Date.now() + 3_600_000;
const record = { tier: "free", label: "bench", created: "2026-11-22T00:00:00Z" };

type Op = (store: Store, i: number) => Promise<unknown>;
const ops: Record<string, { one: Op; many: Op }> = {
  consume: {
    one: (store) => store.consume("quota:one", 1e12, expiresAt),
    many: (store, i) => store.consume(`quota:${i % MANY}`, 1e12, expiresAt),
  },
  next: {
    one: (store) => store.next("one"),
    many: (store, i) => store.next(`seq-${i % MANY}`),
  },
  setIfAbsent: {
    one: (store, i) => store.setIfAbsent("nx:one", { ...record, i }),
    many: (store, i) => store.setIfAbsent(`nx:${i}`, { ...record, i }),
  },
  setItem: {
    one: (store, i) => store.setItem("item:one", { ...record, i }),
    many: (store, i) => store.setItem(`item:${i % MANY}`, { ...record, i }),
  },
};

/** µs per call with `width` calls in flight; each of `width` workers starts its next call when one ends. */
async function perCall(width: number, calls: number, call: (i: number) => Promise<unknown>): Promise<number> {
  let issued = 0;
  const worker = async (): Promise<void> => {
    while (issued < calls) {
      await call(issued++);
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: width }, worker));
  return Number(process.hrtime.bigint() - start) / 1e3 / calls;
}

async function measure(store: Store, label: string, calls: number): Promise<void> {
  await perCall(IN_FLIGHT, Math.min(calls, 2_000), (i) => store.consume(`warm:${i % 10}`, 1e12, expiresAt));
  for (const [name, op] of Object.entries(ops)) {
    const rows = {
      sequential: await perCall(1, Math.ceil(calls / 5), (i) => op.one(store, i)),
      [`${IN_FLIGHT} in flight, 1 key`]: await perCall(IN_FLIGHT, calls, (i) => op.one(store, i)),
      [`${IN_FLIGHT} in flight, many keys`]: await perCall(IN_FLIGHT, calls, (i) => op.many(store, i)),
    };
    const cells = Object.entries(rows).map(([mode, micros]) => `${mode} ${micros.toFixed(2).padStart(8)}`);
    console.log(`${label.padEnd(18)} ${name.padEnd(12)} µs/op: ${cells.join("  ")}`);
  }
}

const calls = Number(process.argv[2] ?? 20_000);

const memory = await createMemoryStore();
await measure(memory, "memory", calls * 5);
await memory.close();

for (const fsync of [false, true]) {
  const dir = await mkdtemp(join(tmpdir(), "rp-bench-"));
  const sqlite = createSqliteStore({ path: join(dir, "picks.db"), fsync });
  await measure(sqlite, `sqlite (${fsync ? "FULL" : "NORMAL"})`, fsync ? Math.ceil(calls / 10) : calls);
  await sqlite.close();
  await rm(dir, { recursive: true, force: true });
}

const skip = redisSkipReason();
if (skip) {
  console.log(skip);
} else {
  const redis = await startRedis();
  const store = await createRedisStore({ url: redis.url });
  await measure(store, "redis (loopback)", calls);
  await store.close();
  await redis.stop();
}

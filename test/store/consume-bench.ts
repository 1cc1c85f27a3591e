// Measures Store.consume: `node --import tsx test/store/consume-bench.ts` (Redis rows need redis-server).
// "sequential" awaits each call (latency); "100 in flight" keeps 100 calls pending (cost per call).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileStore } from "../../server/store/file-store.ts";
import { createMemoryStore } from "../../server/store/memory-store.ts";
import { createRedisStore } from "../../server/store/redis-store.ts";
import type { Store } from "../../server/store/types.ts";
import { redisSkipReason, startRedis } from "../helpers/redis.ts";

const expiresAt = Date.now() + 3_600_000;

async function measure(store: Store, label: string, calls: number): Promise<void> {
  const sequential = async (n: number, key: string): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      await store.consume(key, 1e12, expiresAt);
    }
    return Number(process.hrtime.bigint() - start) / 1e3 / n;
  };
  const inFlight = async (n: number, keys: number): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let done = 0; done < n; done += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => store.consume(`k:${i % keys}`, 1e12, expiresAt)),
      );
    }
    return Number(process.hrtime.bigint() - start) / 1e3 / n;
  };
  await sequential(Math.min(calls, 2_000), "warm");
  const rows = {
    sequential: await sequential(calls, "seq"),
    "100 in flight, 1 key": await inFlight(calls, 1),
    "100 in flight, 100 keys": await inFlight(calls, 100),
  };
  for (const [mode, micros] of Object.entries(rows)) {
    console.log(`${label.padEnd(22)} ${mode.padEnd(24)} ${micros.toFixed(2).padStart(9)} µs/consume`);
  }
}

const memory = await createMemoryStore();
await measure(memory, "memory", 100_000);
await memory.close();

for (const fsync of [true, false]) {
  const dir = await mkdtemp(join(tmpdir(), "rp-bench-"));
  const file = await createFileStore({ dir, fsync });
  await measure(file, `file (fsync ${fsync ? "on" : "off"})`, fsync ? 2_000 : 20_000);
  await file.close();
  await rm(dir, { recursive: true, force: true });
}

const skip = redisSkipReason();
if (skip) {
  console.log(skip);
} else {
  const redis = await startRedis();
  const store = await createRedisStore({ url: redis.url });
  await measure(store, "redis (loopback)", 20_000);
  await store.close();
  await redis.stop();
}

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisStore } from "../../../server/store/redis-store.ts";
import { type RedisServer, redisSkipReason, startRedis } from "../../helpers/redis.ts";
import { expectExactAcrossProcesses } from "./child.ts";

const skip = redisSkipReason();
if (skip) {
  console.warn(skip);
}

describe.skipIf(skip !== null)(`redis store${skip ? ` (${skip})` : ""}`, () => {
  let redis: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
  });
  afterAll(async () => {
    await admin?.quit();
    await redis?.stop();
  });

  it("spends exactly one command, one round trip, per consume, next and setIfAbsent", async () => {
    const store = await createRedisStore({ url: redis.url, prefix: "trips" });
    await store.consume("warm", 1, Date.now() + 60_000);
    const expiresAt = Date.now() + 60_000;
    const commands = await recordCommands(async () => {
      for (let i = 0; i < 50; i++) {
        await store.consume("quota", 30, expiresAt);
      }
      await store.next("ids");
      await store.setIfAbsent("once", 1, { ttlSeconds: 60 });
    });
    expect(countBy(commands)).toEqual({ evalsha: 50, incr: 1, set: 1 });
    await store.close();
  });

  it("falls back to EVAL when the server lost its scripts, then caches them again", async () => {
    const store = await createRedisStore({ url: redis.url, prefix: "flush" });
    await admin.script("FLUSH");
    const commands = await recordCommands(async () => {
      expect(await store.consume("k", 5, Date.now() + 60_000)).toEqual({ allowed: true, count: 1 });
      expect(await store.consume("k", 5, Date.now() + 60_000)).toEqual({ allowed: true, count: 2 });
    });
    expect(commands).toEqual(["evalsha", "eval", "evalsha"]);
    await store.close();
  });

  it("sets the counter's expiry to the window's expiresAt", async () => {
    const store = await createRedisStore({ url: redis.url, prefix: "expiry" });
    const expiresAt = Date.now() + 90_000;
    await store.consume("window", 5, expiresAt);
    await store.consume("window", 5, expiresAt + 30_000);
    expect(Number(await admin.pexpiretime("expiry:window"))).toBe(expiresAt);
    await store.close();
  });

  it("keeps quotas exact, sequences unique and claims single across two processes", async () => {
    const store = await createRedisStore({ url: redis.url, prefix: "cross" });
    await expectExactAcrossProcesses(store, [
      ["redis", redis.url, "cross"],
      ["redis", redis.url, "cross"],
    ]);
    await store.close();
  }, 60_000);

  it("answers ping with false, not a hang, when Redis is gone", async () => {
    const doomed = await startRedis();
    const store = await createRedisStore({ url: doomed.url, pingTimeoutMs: 300, onError: () => {} });
    expect(await store.ping()).toBe(true);
    await doomed.stop();
    const started = Date.now();
    expect(await store.ping()).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
    await store.close();
  });

  it("fails at creation with the URL (password hidden) when Redis does not answer", async () => {
    const doomed = await startRedis();
    await doomed.stop();
    const url = doomed.url.replace("redis://", "redis://user:secret@");
    await expect(createRedisStore({ url, onError: () => {} })).rejects.toThrow(
      `Expected Redis at redis://***@127.0.0.1:${doomed.port} to answer`,
    );
  });

  /** The commands that clients (not scripts) sent while `work` ran, through MONITOR. */
  async function recordCommands(work: () => Promise<void>): Promise<string[]> {
    const monitor = await admin.monitor();
    const commands: string[] = [];
    let ended: () => void = () => {};
    const end = new Promise<void>((resolve) => {
      ended = resolve;
    });
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      if (args[0] === "echo" && args[1] === "end-of-recording") {
        ended();
      } else if (source !== "lua" && args[0]) {
        commands.push(args[0].toLowerCase());
      }
    });
    await work();
    // MONITOR streams on its own connection: an ECHO from another one marks the end of the record.
    await admin.echo("end-of-recording");
    await end;
    monitor.disconnect();
    return commands;
  }
});

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) {
    counts[value] = (counts[value] ?? 0) + 1;
  }
  return counts;
}

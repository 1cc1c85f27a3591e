import type { Redis as RedisClient } from "ioredis";

// A hint on Redis that a publish finished, so every server polls the manifest at once instead of at
// its next interval. Only a hint: the manifest is the truth, and a lost hint delays a day to the poll.

/** ioredis, loaded only where a hint is sent or heard: `picks publish` without Redis never pays for it. */
async function connectTo(url: string, options: import("ioredis").RedisOptions): Promise<RedisClient> {
  const { Redis } = await import("ioredis");
  return new Redis(url, options);
}

export const PUBLISH_HINT_CHANNEL = "picks:snapshots:published";

/** Tells the servers sharing `redisUrl` that `newestDay` was published. Fails quietly into `warn`. */
export async function sendPublishHint(
  redisUrl: string,
  newestDay: string | null,
  warn: (message: string) => void,
): Promise<void> {
  const redis = await connectTo(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 3_000,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.publish(PUBLISH_HINT_CHANNEL, JSON.stringify({ newest_day: newestDay }));
  } catch (error) {
    warn(
      `the servers were not told on Redis (they find the day at their next poll): ${(error as Error).message}`,
    );
  } finally {
    redis.disconnect();
  }
}

/** Calls `onHint` at each publish hint; returns the unsubscribe. Reconnects by itself. */
export async function subscribePublishHints(
  redisUrl: string,
  onHint: () => void,
  log: (message: string) => void,
): Promise<() => void> {
  const redis = await connectTo(redisUrl, { maxRetriesPerRequest: null, connectTimeout: 3_000 });
  let warned = false;
  redis.on("error", (error) => {
    if (!warned) log(`publish hints: Redis unreachable (${error.message}); polling only until it returns`);
    warned = true;
  });
  redis.on("ready", () => {
    warned = false;
  });
  redis.on("message", (channel) => {
    if (channel === PUBLISH_HINT_CHANNEL) onHint();
  });
  void redis.subscribe(PUBLISH_HINT_CHANNEL).catch(() => {});
  return () => redis.disconnect();
}

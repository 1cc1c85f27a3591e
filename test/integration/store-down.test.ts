import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSnapshotCache, type SnapshotCache } from "../../server/snapshots/snapshot-cache.ts";
import { createRedisStore } from "../../server/store/redis-store.ts";
import type { Store } from "../../server/store/types.ts";
import { type Call, clientFor } from "../helpers/app-client.ts";
import { testContext } from "../helpers/context.ts";
import { publishSampleDays } from "../helpers/published.ts";
import { type RedisServer, redisSkipReason, startRedis } from "../helpers/redis.ts";

// Skipped only on a developer machine without redis-server; CI installs it, so there it must run.
const skip = redisSkipReason() !== null && !process.env.CI;

describe.skipIf(skip)("when the store goes down", () => {
  let redis: RedisServer;
  let store: Store;
  let snapshots: SnapshotCache;
  let call: Call;
  let close: () => Promise<void>;
  let key: string;

  beforeAll(async () => {
    redis = await startRedis();
    store = await createRedisStore({ url: redis.url, onError: () => {} });
    snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
    const context = await testContext(snapshots, { store });
    key = (await context.keys.issue({ tier: "pro", email: "d@example.org", label: "down" })).key;
    ({ call, close } = await clientFor("real port", context));
    expect((await call("/v1/papers", { headers: { "x-api-key": key } })).status).toBe(200);
    await redis.stop();
  });
  afterAll(async () => {
    await close();
    await store.close().catch(() => {});
    snapshots.close();
  });

  it("reports a degraded health with the store unreachable", async () => {
    const response = await call("/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: "degraded",
      store: { kind: "redis", reachable: false },
    });
  });

  it("answers keyed and counted endpoints with 503 and a detail, never 500", async () => {
    for (const [path, init] of [
      ["/v1/me", { headers: { "x-api-key": key } }],
      [
        "/v1/keys",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"email":"a@b.c","label":"x"}',
        },
      ],
    ] as const) {
      const response = await call(path, init);
      expect(response.status).toBe(503);
      expect(((await response.json()) as { detail: string }).detail).toContain("store is unreachable");
      expect(response.headers.get("retry-after")).toBe("5");
    }
  });

  it("keeps serving the static snapshots", async () => {
    for (const path of ["/v1/daily/latest", "/v1/recent", "/v1/stats", "/v1/axes", "/v1/daily/2026-11-19"]) {
      expect((await call(path)).status).toBe(200);
    }
  });
});

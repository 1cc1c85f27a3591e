import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStoreFromEnv } from "../../../server/store/from-env.ts";
import { type RedisServer, redisSkipReason, startRedis } from "../../helpers/redis.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "rp-from-env-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("createStoreFromEnv", () => {
  it("opens the SQLite database <root>/.state/picks.db by default", async () => {
    const store = await createStoreFromEnv({}, { rootDir: root });
    expect(store.kind).toBe("sqlite");
    await store.setItem("k", 1);
    await store.close();
    expect(await readdir(join(root, ".state"))).toContain("picks.db");
  });

  it("honours STATE_DIR, STATE_STORE=memory and the older name `file` for the embedded store", async () => {
    const file = await createStoreFromEnv({ STATE_DIR: "var/state", STATE_STORE: "file" }, { rootDir: root });
    expect(file.kind).toBe("sqlite");
    await file.setItem("k", 1);
    await file.close();
    expect(await readdir(join(root, "var/state"))).toContain("picks.db");
    const memory = await createStoreFromEnv({ STATE_STORE: "memory", REDIS_URL: "" }, { rootDir: root });
    expect(memory.kind).toBe("memory");
    await memory.close();
  });

  it("says what it expected for a wrong STATE_STORE or a missing REDIS_URL", async () => {
    await expect(createStoreFromEnv({ STATE_STORE: "postgres" })).rejects.toThrow(
      "Expected STATE_STORE to be `memory`, `sqlite` or `redis`, got `postgres`",
    );
    await expect(createStoreFromEnv({ STATE_STORE: "redis" })).rejects.toThrow(/REDIS_URL/);
  });

  const skip = redisSkipReason();
  describe.skipIf(skip !== null)(`with REDIS_URL${skip ? ` (${skip})` : ""}`, () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(() => redis?.stop());

    it("picks Redis, under REDIS_PREFIX", async () => {
      const store = await createStoreFromEnv(
        { REDIS_URL: redis.url, REDIS_PREFIX: "envtest" },
        { rootDir: root },
      );
      expect(store.kind).toBe("redis");
      await store.setItem("k", { a: 1 });
      const other = await createStoreFromEnv({ REDIS_URL: redis.url, REDIS_PREFIX: "other" });
      expect(await other.getItem("k")).toBeNull();
      expect(await store.getItem("k")).toEqual({ a: 1 });
      await Promise.all([store.close(), other.close()]);
    });
  });
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../../server/context.ts";
import { createRedisStore } from "../../../server/store/redis-store.ts";
import { createSqliteStore } from "../../../server/store/sqlite-store.ts";
import { type Call, clientFor } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { useRankedSample } from "../../helpers/ranked-sample.ts";
import { type RedisServer, redisSkipReason, startRedis } from "../../helpers/redis.ts";

// The proof of the profile's privacy on the real stores: two servers sharing one Redis, and the
// SQLite file itself, read after an erasure.

const sample = useRankedSample();

const send = (call: Call, key: string, method: string, path: string, body?: unknown) =>
  call(path, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

const skip = redisSkipReason();
describe.skipIf(skip !== null)("two servers sharing Redis", () => {
  let redis: RedisServer;
  const servers: Array<{ context: AppContext; call: Call; close: () => Promise<void> }> = [];
  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++) {
      const store = await createRedisStore({ url: redis.url, prefix: "rp" });
      const context = await testContext(sample.snapshots, { store, relevance: sample.relevance });
      servers.push({ context, ...(await clientFor(i === 0 ? "in-process" : "real port", context)) });
    }
  });
  afterAll(async () => {
    for (const server of servers) {
      await server.close();
      await server.context.store.close();
    }
    await redis?.stop();
  });

  it("keeps each key's profile and list to itself on both, and erases every Redis key of it", async () => {
    const [one, two] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const a = (await one.context.keys.issue({ tier: "free", email: "a@example.org", label: "a" })).key;
    const b = (await two.context.keys.issue({ tier: "free", email: "b@example.org", label: "b" })).key;
    const day = (await json(await send(one.call, a, "GET", "/v1/me/picks?limit=25"))) as {
      items: Array<{ arxiv_id: string; authors: string[] }>;
    };
    const liked = day.items.slice(-3).map((item) => item.arxiv_id);
    expect((await send(one.call, a, "PUT", "/v1/me/library", liked)).status).toBe(200);
    const followed = day.items[5]?.authors[0] as string;
    expect((await send(two.call, b, "PUT", "/v1/me/follows", { authors: [followed] })).status).toBe(200);

    for (const server of servers) {
      const mineA = (await json(await send(server.call, a, "GET", "/v1/me/profile"))) as {
        library: unknown[];
        follows: { authors: string[] };
        key_id: string;
      };
      const mineB = (await json(await send(server.call, b, "GET", "/v1/me/profile"))) as typeof mineA;
      expect(mineA.library).toHaveLength(3);
      expect(mineA.follows.authors).toEqual([]);
      expect(mineB.library).toEqual([]);
      expect(mineB.follows.authors).toEqual([followed]);
      const listB = (await json(await send(server.call, b, "GET", "/v1/me/picks?limit=3"))) as {
        items: Array<{ authors: string[]; why_for_you: { followed_author: string | null } }>;
      };
      expect(listB.items[0]?.why_for_you.followed_author).toBe(followed);
      const listA = (await json(await send(server.call, a, "GET", "/v1/me/picks?limit=3"))) as typeof listB;
      expect(listA.items.every((item) => item.why_for_you.followed_author === null)).toBe(true);
    }

    const idA = ((await json(await send(two.call, a, "GET", "/v1/me/profile"))) as { key_id: string }).key_id;
    const client = new Redis(redis.url);
    try {
      expect((await client.keys(`rp:reader:${idA}:*`)).length).toBeGreaterThanOrEqual(3);
      // Erased through the other server: gone for both at once.
      expect((await send(two.call, a, "DELETE", "/v1/me/profile")).status).toBe(200);
      expect(await client.keys(`rp:reader:${idA}*`)).toEqual([]);
      expect(
        ((await json(await send(one.call, a, "GET", "/v1/me/profile"))) as { version: number }).version,
      ).toBe(0);
      expect((await client.keys("rp:reader:*")).length).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
  });
});

describe("the SQLite file after an erasure", () => {
  it("holds no row of the erased profile", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rp-readers-"));
    const path = join(dir, "picks.db");
    const store = createSqliteStore({ path });
    try {
      const context = await testContext(sample.snapshots, { store, relevance: sample.relevance });
      const { call, close } = await clientFor("in-process", context);
      const { key, record } = await context.keys.issue({ tier: "free", email: "c@example.org", label: "c" });
      expect((await send(call, key, "PUT", "/v1/me/library", ["2310.08560", "2406.13352"])).status).toBe(200);
      expect((await send(call, key, "PUT", "/v1/me/follows", { phrases: ["audit trail"] })).status).toBe(200);
      const rows = () => {
        const db = new Database(path, { readonly: true });
        try {
          return db.prepare("SELECT key FROM kv WHERE key LIKE ?").pluck().all(`reader:${record.id}%`);
        } finally {
          db.close();
        }
      };
      expect(rows().length).toBeGreaterThanOrEqual(2);
      expect((await send(call, key, "DELETE", "/v1/me/profile")).status).toBe(200);
      expect(rows()).toEqual([]);
      await close();
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { keyedCall as send } from "../../helpers/app-client.ts";
import { useRankedSample } from "../../helpers/ranked-sample.ts";
import { redisSkipReason } from "../../helpers/redis.ts";
import { sqliteKeys, useServersOverRedis, withSqliteServer } from "../../helpers/store-servers.ts";

// The proof of the profile's privacy on the real stores: two servers sharing one Redis, and the
// SQLite file itself, read after an erasure.

const sample = useRankedSample();

const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

const skip = redisSkipReason();
describe.skipIf(skip !== null)("two servers sharing Redis", () => {
  const cluster = useServersOverRedis(sample);

  it("keeps each key's profile and list to itself on both, and erases every Redis key of it", async () => {
    const { one, two, redis } = cluster;
    const servers = [one, two];
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
    await withSqliteServer(sample, async ({ context, call, path }) => {
      const { key, record } = await context.keys.issue({ tier: "free", email: "c@example.org", label: "c" });
      expect((await send(call, key, "PUT", "/v1/me/library", ["2310.08560", "2406.13352"])).status).toBe(200);
      expect((await send(call, key, "PUT", "/v1/me/follows", { phrases: ["audit trail"] })).status).toBe(200);
      expect(sqliteKeys(path, `reader:${record.id}%`).length).toBeGreaterThanOrEqual(2);
      expect((await send(call, key, "DELETE", "/v1/me/profile")).status).toBe(200);
      expect(sqliteKeys(path, `reader:${record.id}%`)).toEqual([]);
    });
  });
});

import { parseAtomFeed } from "feedsmith";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import type { PersonalPicks } from "../../../pipeline/domain/reader-answers.ts";
import { hashFeedToken, issueFeedToken } from "../../../server/readers/feed-tokens.ts";
import { type Call, keyedCall as send } from "../../helpers/app-client.ts";
import { useRankedSample } from "../../helpers/ranked-sample.ts";
import { redisSkipReason } from "../../helpers/redis.ts";
import { sqliteKeys, useServersOverRedis, withSqliteServer } from "../../helpers/store-servers.ts";

// The personal feed's token on the real stores: two servers sharing one Redis serve each key its own
// feed, and erasure and revocation leave no record of the token in Redis or in the SQLite file.

const sample = useRankedSample();

const tokenOf = async (call: Call, key: string): Promise<string> => {
  const response = await send(call, key, "POST", "/v1/me/feed-token");
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
};
const feedIds = async (call: Call, token: string): Promise<string[]> => {
  const response = await call(`/v1/feeds/for-you/${token}.xml`);
  expect(response.status).toBe(200);
  return (parseAtomFeed(await response.text()).entries ?? []).map((entry) => entry.id ?? "");
};
const listIds = async (call: Call, key: string): Promise<string[]> => {
  const list = (await (await send(call, key, "GET", "/v1/me/picks?limit=10")).json()) as PersonalPicks;
  return list.items.map((item) => `https://arxiv.org/abs/${item.arxiv_id}#for-you-${list.date}`);
};

const skip = redisSkipReason();
describe.skipIf(skip !== null)("feed tokens on two servers sharing Redis", () => {
  const cluster = useServersOverRedis(sample);

  it("serves each key only its own feed on both, and erasure and revocation leave no Redis key of a token", async () => {
    const { one, two, redis } = cluster;
    const servers = [one, two];
    const issued = async (label: string) =>
      one.context.keys.issue({ tier: "free", email: `${label}@example.org`, label });
    const a = await issued("a");
    const b = await issued("b");
    const global = await listIds(one.call, a.key);
    // A follows one author, B another: their lists, and so their feeds, start apart.
    const day = (await (await send(one.call, a.key, "GET", "/v1/me/picks?limit=25")).json()) as PersonalPicks;
    const authorA = day.items[9]?.authors[0] as string;
    const authorB = day.items[14]?.authors[0] as string;
    expect((await send(one.call, a.key, "PUT", "/v1/me/follows", { authors: [authorA] })).status).toBe(200);
    expect((await send(two.call, b.key, "PUT", "/v1/me/follows", { authors: [authorB] })).status).toBe(200);
    const tokenA = await tokenOf(one.call, a.key);
    const tokenB = await tokenOf(two.call, b.key);

    const listA = await listIds(two.call, a.key);
    const listB = await listIds(one.call, b.key);
    expect(listA).not.toEqual(listB);
    expect(listA).not.toEqual(global);
    for (const server of servers) {
      expect(await feedIds(server.call, tokenA)).toEqual(listA);
      expect(await feedIds(server.call, tokenB)).toEqual(listB);
    }

    const client = new Redis(redis.url);
    try {
      const lookupA = `rp:feedtoken:${hashFeedToken(tokenA)}`;
      const lookupB = `rp:feedtoken:${hashFeedToken(tokenB)}`;
      expect(await client.exists(lookupA, lookupB, `rp:reader:${a.record.id}:feedtoken`)).toBe(3);
      // Neither the token nor anything of it but its hash is stored.
      for (const stored of await client.keys("rp:*")) {
        const value = (await client.type(stored)) === "string" ? await client.get(stored) : "";
        expect(`${stored} ${value}`).not.toContain(tokenA.slice(4));
      }

      // Erased through the other server: the token is gone for both at once, with every key of it.
      expect((await send(two.call, a.key, "DELETE", "/v1/me/profile")).status).toBe(200);
      expect(await client.keys(`rp:reader:${a.record.id}*`)).toEqual([]);
      expect(await client.exists(lookupA)).toBe(0);
      for (const server of servers) {
        expect((await server.call(`/v1/feeds/for-you/${tokenA}.xml`)).status).toBe(404);
      }

      await two.context.keys.revoke(b.record.id);
      expect(await client.keys(`rp:reader:${b.record.id}*`)).toEqual([]);
      expect(await client.keys("rp:feedtoken:*")).toEqual([]);
      for (const server of servers) {
        expect((await server.call(`/v1/feeds/for-you/${tokenB}.json`)).status).toBe(404);
      }
    } finally {
      client.disconnect();
    }
  });
});

describe("the SQLite file after erasure and revocation", () => {
  it("keeps no token issued by a process that still held the key as active after its revocation", async () => {
    await withSqliteServer(sample, async ({ context, store, path }) => {
      const { record } = await context.keys.issue({ tier: "free", email: "e@example.org", label: "e" });
      // Revoked (and erased) elsewhere; this process's cached record still says active.
      await context.keys.revoke(record.id);
      expect(await issueFeedToken(store, record, "2026-11-21T06:00:00Z")).toBe("revoked");
      expect([...sqliteKeys(path, "feedtoken:%"), ...sqliteKeys(path, `reader:${record.id}%`)]).toEqual([]);
    });
  });

  it("holds no row of a feed token", async () => {
    await withSqliteServer(sample, async ({ context, call, path }) => {
      const rows = (pattern: string) => sqliteKeys(path, pattern);
      const erased = await context.keys.issue({ tier: "free", email: "c@example.org", label: "c" });
      const revoked = await context.keys.issue({ tier: "free", email: "d@example.org", label: "d" });
      const first = await tokenOf(call, erased.key);
      const second = await tokenOf(call, erased.key);
      const third = await tokenOf(call, revoked.key);
      // A replaced token's lookup went at once: one per key is left.
      expect(rows("feedtoken:%").sort()).toEqual(
        [`feedtoken:${hashFeedToken(second)}`, `feedtoken:${hashFeedToken(third)}`].sort(),
      );
      expect(rows(`feedtoken:${hashFeedToken(first)}`)).toEqual([]);
      expect(rows(`reader:${erased.record.id}:feedtoken`)).toHaveLength(1);

      expect((await send(call, erased.key, "DELETE", "/v1/me/profile")).status).toBe(200);
      expect(rows(`reader:${erased.record.id}%`)).toEqual([]);
      expect(rows("feedtoken:%")).toEqual([`feedtoken:${hashFeedToken(third)}`]);
      await context.keys.revoke(revoked.key);
      expect(rows(`reader:${revoked.record.id}%`)).toEqual([]);
      expect(rows("feedtoken:%")).toEqual([]);
      expect((await call(`/v1/feeds/for-you/${third}.xml`)).status).toBe(404);
    });
  });
});

import { parseAtomFeed, parseJsonFeed } from "feedsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PersonalJsonFeedSchema } from "../../../pipeline/domain/personal-feed.ts";
import type { PersonalPicks, ProfileExport } from "../../../pipeline/domain/reader-answers.ts";
import type { AppContext } from "../../../server/context.ts";
import { type Call, clientFor, keyedCall, MODES } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { useRankedSample } from "../../helpers/ranked-sample.ts";

// The personal feed at its capability URL, over both ways of calling the app: issued and rotated with
// the key, read with the token alone, checked by an independent feed parser (feedsmith, as the group
// feeds are), and refused alike for every token that opens nothing.

interface Issued {
  token: string;
  issued_at: string;
  atom_url: string;
  json_url: string;
  replaced: boolean;
}

const sample = useRankedSample();

const FEED_READS = 8;

describe.each(MODES)("the personal feed (%s)", (mode) => {
  let context: AppContext;
  let call: Call;
  let close: () => Promise<void>;
  let origin: string;
  const issueKey = async () =>
    (await context.keys.issue({ tier: "free", email: "reader@example.org", label: "reader" })).key;
  const send = (key: string, method: string, path: string, body?: unknown) =>
    keyedCall(call, key, method, path, body);
  const issueToken = async (key: string): Promise<Issued> => {
    const response = await send(key, "POST", "/v1/me/feed-token");
    expect(response.status).toBe(201);
    return (await response.json()) as Issued;
  };
  const feed = (token: string, form: "xml" | "json", headers: Record<string, string> = {}) =>
    call(`/v1/feeds/for-you/${token}.${form}`, { headers });
  const picks = async (key: string, limit: number) =>
    (await (await send(key, "GET", `/v1/me/picks?limit=${limit}`)).json()) as PersonalPicks;

  beforeAll(async () => {
    context = await testContext(sample.snapshots, {
      relevance: sample.relevance,
      // A still clock: the feed-read rate's hour must not end between the reads and the 429 expected.
      now: () => Date.parse("2026-11-29T12:00:00Z"),
      config: {
        profileWriteRate: { name: "profile-writes", limit: 1000, windowSeconds: 60 },
        feedReadRate: { name: "feed-reads", limit: FEED_READS, windowSeconds: 3600 },
      },
    });
    const client = await clientFor(mode, context);
    ({ call, close } = client);
    // Without PUBLIC_BASE_URL the feeds' URLs name the origin the request came to.
    origin = client.url ?? "http://localhost";
  });
  afterAll(() => close());

  it("serves the key's list as Atom and JSON Feed that feedsmith reads, in the order of GET /v1/me/picks", async () => {
    const key = await issueKey();
    const day = await picks(key, 25);
    const author = day.items[7]?.authors[0] as string;
    expect((await send(key, "PUT", "/v1/me/follows", { authors: [author], phrases: [] })).status).toBe(200);
    const list = await picks(key, 10);
    expect(list.items[0]?.why_for_you.placed_by).toBe("followed_author");

    const issued = await issueToken(key);
    expect(issued.token).toMatch(/^rpf_[A-Za-z0-9_-]{43}$/);
    expect(issued.token).not.toBe(key);
    expect(issued.replaced).toBe(false);
    expect(issued.atom_url).toBe(`${origin}/v1/feeds/for-you/${issued.token}.xml`);
    expect(issued.json_url).toBe(`${origin}/v1/feeds/for-you/${issued.token}.json`);
    const ids = list.items.map((item) => `https://arxiv.org/abs/${item.arxiv_id}#for-you-${list.date}`);

    const xml = await feed(issued.token, "xml");
    expect(xml.status).toBe(200);
    expect(xml.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    expect(xml.headers.get("cache-control")).toBe("private, max-age=300");
    const atom = parseAtomFeed(await xml.text());
    expect((atom.entries ?? []).map((entry) => entry.id)).toEqual(ids);
    expect(atom.title?.value).toMatch(/^Research-Picks: for you/);
    expect(atom.entries?.[0]?.summary?.value).toContain("By an author you follow.");
    expect(atom.entries?.[0]?.summary?.value).toMatch(/^(Sample data\. )?For you #1 of /);

    const jsonAnswer = await feed(issued.token, "json");
    expect(jsonAnswer.headers.get("content-type")).toBe("application/feed+json; charset=utf-8");
    const text = await jsonAnswer.text();
    const parsed = parseJsonFeed(text);
    expect((parsed.items ?? []).map((item) => item.id)).toEqual(ids);
    expect(parsed.feed_url).toBe(issued.json_url);
    const json = PersonalJsonFeedSchema.parse(JSON.parse(text));
    expect(json.items.map((item) => item._for_you.why_for_you)).toEqual(
      list.items.map(({ why_for_you: why }) => ({
        global_likelihood: why.global_likelihood,
        personal: why.personal,
        placed_by: why.placed_by,
        near_library: why.nearest.length > 0,
      })),
    );
    expect(json.items.map((item) => item._for_you.global_rank)).toEqual(
      list.items.map((item) => item.global_rank),
    );
  });

  it("never names the library's titles nor the follows, which GET /v1/me/picks gives the key", async () => {
    const key = await issueKey();
    const day = await picks(key, 25);
    // Private drafts: titles only the reader knows, each near one of the day's papers.
    const MARK = "QZX7 private draft";
    const drafts = day.items
      .slice(-3)
      .map((item, n) => ({ id: `draft-${n}`, title: `${item.title} (${MARK} ${n})` }));
    expect((await send(key, "PUT", "/v1/me/library", drafts)).status).toBe(200);
    // A phrase as the reader wrote it: matched without regard to case, so the feed's own text never holds it.
    const word =
      (day.items[20]?.title.split(/\s+/).find((part) => /^[a-z]{6,}$/i.test(part)) as string) ?? "";
    const phrase = [...word]
      .map((letter, n) => (n % 2 ? letter.toUpperCase() : letter.toLowerCase()))
      .join("");
    expect(phrase.length).toBeGreaterThanOrEqual(6);
    expect((await send(key, "PUT", "/v1/me/follows", { authors: [], phrases: [phrase] })).status).toBe(200);

    // The list at the key says both, so the feed has them to leave out.
    const list = await picks(key, 10);
    expect(list.items.some((item) => item.why_for_you.followed_phrase === phrase)).toBe(true);
    const named = list.items.flatMap((item) => item.why_for_you.nearest.map((near) => near.title));
    expect(named.some((title) => title?.includes(MARK))).toBe(true);

    const { token } = await issueToken(key);
    for (const form of ["xml", "json"] as const) {
      const answer = await feed(token, form);
      expect(answer.status).toBe(200);
      const body = await answer.text();
      expect(body, form).not.toContain(MARK);
      expect(body, form).not.toContain(phrase);
      expect(body, form).not.toContain("draft-");
      expect(body, form).toContain("Mentions a phrase you follow.");
      expect(body, form).toContain("Near papers in your library or likes.");
    }
  });

  it("spends no quota, answers 304 to its ETag until the profile changes, and rate-limits polling", async () => {
    const key = await issueKey();
    const { token } = await issueToken(key);
    const first = await feed(token, "xml");
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"fy-\d{4}-\d{2}-\d{2}-v0-[0-9a-f]{16}"$/);
    expect((await feed(token, "xml")).headers.get("etag")).toBe(etag);
    const unchanged = await feed(token, "xml", { "if-none-match": etag });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe("");
    // Atom and JSON are two representations: two tags.
    expect((await feed(token, "json")).headers.get("etag")).not.toBe(etag);

    const author = (await picks(key, 25)).items[12]?.authors[0] as string;
    expect((await send(key, "PUT", "/v1/me/follows", { authors: [author], phrases: [] })).status).toBe(200);
    const changed = await feed(token, "xml", { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).toMatch(/^"fy-\d{4}-\d{2}-\d{2}-v1-/);

    const me = (await (await send(key, "GET", "/v1/me")).json()) as { usage: { used: number } };
    // The one call of /v1/me/picks above; none of the feed's reads.
    expect(me.usage.used).toBe(1);

    // Five reads so far (the 304 among them); the rate allows FEED_READS an hour.
    for (let i = 5; i < FEED_READS; i++) expect((await feed(token, "json")).status).toBe(200);
    const refused = await feed(token, "json");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/feed reads: at most 8 per hour/);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("answers the same 404 for a rotated token, a revoked key's token and a rotated key's token", async () => {
    const key = await issueKey();
    const old = await issueToken(key);
    const fresh = await issueToken(key);
    expect(fresh.replaced).toBe(true);
    expect(fresh.token).not.toBe(old.token);
    const gone = await feed(old.token, "xml");
    expect(gone.status).toBe(404);
    const goneBody = await gone.text();
    expect(JSON.parse(goneBody)).toEqual({ detail: expect.stringContaining("No feed at this address") });
    expect((await feed(fresh.token, "xml")).status).toBe(200);
    const unknown = await feed(`rpf_${"A".repeat(43)}`, "json");
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe(goneBody);

    // Rotating the key keeps the profile but ends the feed: the old key could have issued the token.
    const rotating = await issueKey();
    const beforeRotation = await issueToken(rotating);
    await send(rotating, "PUT", "/v1/me/follows", { authors: ["Grace Hopper"], phrases: [] });
    const id = ((await (await send(rotating, "GET", "/v1/me/profile")).json()) as ProfileExport).key_id;
    const rotated = await context.keys.rotate(id);
    expect((await feed(beforeRotation.token, "xml")).status).toBe(404);
    const kept = (await (
      await send(rotated?.key as string, "GET", "/v1/me/profile")
    ).json()) as ProfileExport;
    expect(kept.follows.authors).toEqual(["Grace Hopper"]);
    expect(kept.feed_token).toBeNull();

    const revoking = await issueKey();
    const revokedToken = await issueToken(revoking);
    expect((await feed(revokedToken.token, "json")).status).toBe(200);
    const revokedId = ((await (await send(revoking, "GET", "/v1/me/profile")).json()) as ProfileExport)
      .key_id;
    await context.keys.revoke(revokedId);
    const afterRevoke = await feed(revokedToken.token, "json");
    expect(afterRevoke.status).toBe(404);
    expect(await afterRevoke.text()).toBe(goneBody);
  });

  it("tells the export that a token exists and when it was issued, never the token", async () => {
    const key = await issueKey();
    const none = (await (await send(key, "GET", "/v1/me/profile")).json()) as ProfileExport;
    expect(none.feed_token).toBeNull();
    const issued = await issueToken(key);
    const text = await (await send(key, "GET", "/v1/me/profile")).text();
    expect((JSON.parse(text) as ProfileExport).feed_token).toEqual({ issued_at: issued.issued_at });
    expect(text).not.toContain(issued.token);
    expect(text).not.toContain(issued.token.slice(4, 20));
  });

  it("answers 404 with a detail, never a 500, for paths that cannot be a token", async () => {
    const key = await issueKey();
    const { token } = await issueToken(key);
    const paths = [
      "/v1/feeds/for-you/abc.xml",
      "/v1/feeds/for-you/.json",
      `/v1/feeds/for-you/${token.slice(0, -1)}.xml`,
      `/v1/feeds/for-you/${token}x.json`,
      `/v1/feeds/for-you/${token.toUpperCase()}.xml`,
      `/v1/feeds/for-you/${token}.xml.json`,
      `/v1/feeds/for-you/%00${token}.xml`,
      "/v1/feeds/for-you/%E0%A4%A.xml",
      "/v1/feeds/for-you/..%2F..%2Fv1%2Fme.json",
      `/v1/feeds/for-you/${"a".repeat(4000)}.xml`,
      `/v1/feeds/for-you/${token}`,
      `/v1/feeds/for-you/${token}.atom`,
      "/v1/feeds/for-you/",
    ];
    for (const path of paths) {
      const response = await call(path);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { detail: unknown }).detail, path).toEqual(expect.any(String));
    }
    const post = await call(`/v1/feeds/for-you/${token}.xml`, { method: "POST" });
    expect(post.status).toBe(405);
    expect((await send("rp_labs_not-a-key", "POST", "/v1/me/feed-token")).status).toBe(401);
  });
});

describe.each(MODES)("the personal feed's misses per address (%s)", (mode) => {
  const MISSES = 3;
  let context: AppContext;
  let call: Call;
  let close: () => Promise<void>;
  let clock = Date.parse("2026-11-29T12:00:00Z");

  beforeAll(async () => {
    context = await testContext(sample.snapshots, {
      relevance: sample.relevance,
      now: () => clock,
      config: { feedMissRate: { name: "feed-misses", limit: MISSES, windowSeconds: 3600 } },
    });
    ({ call, close } = await clientFor(mode, context));
  });
  afterAll(() => close());

  it("answers the same 404 to each dead token below the limit, then 429 with Retry-After until the hour ends", async () => {
    const key = (await context.keys.issue({ tier: "free", email: "reader@example.org", label: "reader" }))
      .key;
    const issued = await call("/v1/me/feed-token", { method: "POST", headers: { "x-api-key": key } });
    const { token } = (await issued.json()) as Issued;
    const dead = (n: number) => `/v1/feeds/for-you/rpf_${String(n).padStart(43, "A")}.json`;

    const bodies: string[] = [];
    for (let n = 0; n < MISSES; n++) {
      const miss = await call(dead(n));
      expect(miss.status).toBe(404);
      bodies.push(await miss.text());
    }
    expect(new Set(bodies).size).toBe(1);
    // A malformed token costs no store read and is not counted.
    expect((await call("/v1/feeds/for-you/not-a-token.xml")).status).toBe(404);
    expect((await call(`/v1/feeds/for-you/${token}.xml`)).status).toBe(200);

    const refused = await call(dead(MISSES));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3500);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(
      /feeds that do not exist from this address: at most 3 per hour/,
    );
    // Past the limit the address is refused before any store read, whatever the token.
    const reads = context.store.getItem.bind(context.store);
    let storeReads = 0;
    context.store.getItem = ((...args: Parameters<typeof reads>) => {
      storeReads++;
      return reads(...args);
    }) as typeof context.store.getItem;
    try {
      expect((await call(dead(MISSES + 1))).status).toBe(429);
      expect((await call(`/v1/feeds/for-you/${token}.json`)).status).toBe(429);
    } finally {
      context.store.getItem = reads;
    }
    expect(storeReads).toBe(0);

    // The refusal this process remembers ends with the window (the store's counter expires on its own clock).
    clock += 3601 * 1000;
    expect((await call(`/v1/feeds/for-you/${token}.json`)).status).toBe(200);
  });
});

describe("the personal feed behind PUBLIC_BASE_URL", () => {
  it("names the public origin in the feeds' URLs, not the request's", async () => {
    const context = await testContext(sample.snapshots, {
      relevance: sample.relevance,
      config: { publicBaseUrl: "https://picks.example.org" },
    });
    const { call, close } = await clientFor("in-process", context);
    try {
      const key = (await context.keys.issue({ tier: "free", email: "r@example.org", label: "r" })).key;
      const response = await keyedCall(call, key, "POST", "/v1/me/feed-token");
      expect(response.status).toBe(201);
      const issued = (await response.json()) as Issued;
      expect(issued.atom_url).toBe(`https://picks.example.org/v1/feeds/for-you/${issued.token}.xml`);
      expect(issued.json_url).toBe(`https://picks.example.org/v1/feeds/for-you/${issued.token}.json`);
    } finally {
      await close();
    }
  });
});

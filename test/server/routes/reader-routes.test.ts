import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PersonalPicks, ProfileExport } from "../../../pipeline/domain/reader-answers.ts";
import { createKeyService, findKeyById, type KeyService } from "../../../server/access/key-service.ts";
import type { AppContext } from "../../../server/context.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import type { Store } from "../../../server/store/types.ts";
import { type Call, clientFor } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { useRankedSample } from "../../helpers/ranked-sample.ts";

/** A JSON answer, read loosely: each test asserts the fields it names. */
// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field by the assertions
const body = async (response: Response): Promise<any> => response.json();

const exports = (name: string) => readFile(new URL(`../readers/exports/${name}`, import.meta.url), "utf8");

const sample = useRankedSample();

describe("reader profiles and personal picks", () => {
  let context: AppContext;
  let call: Call;
  let close: () => Promise<void>;
  const issue = async (tier: "free" | "pro" = "free") =>
    (await context.keys.issue({ tier, email: "reader@example.org", label: "reader" })).key;
  const send = (key: string, method: string, path: string, body?: unknown, type = "application/json") =>
    call(path, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": type }) },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
  const picks = async (key: string, query = "") => {
    const response = await send(key, "GET", `/v1/me/picks${query}`);
    expect(response.status).toBe(200);
    return (await body(response)) as PersonalPicks;
  };
  const exported = async (key: string) =>
    (await (await send(key, "GET", "/v1/me/profile")).json()) as ProfileExport;

  beforeAll(async () => {
    context = await testContext(sample.snapshots, {
      relevance: sample.relevance,
      config: { profileWriteRate: { name: "profile-writes", limit: 1000, windowSeconds: 60 } },
    });
    ({ call, close } = await clientFor("in-process", context));
  });
  afterAll(() => close());

  it("answers an empty profile with the day's global order, and spends one call of the quota", async () => {
    const key = await issue();
    const list = await picks(key, "?limit=25");
    expect(list.personal).toBe(false);
    // Every screened paper of the day is ranked, not only the picks; the free tier shows 25.
    expect(list.screened).toBeGreaterThan(25);
    expect(list.items).toHaveLength(25);
    expect(list.items.filter((item) => item.picked).length).toBeGreaterThan(0);
    expect(list.items.map((item) => item.global_rank)).toEqual(list.items.map((_, i) => i + 1));
    const me = (await (await send(key, "GET", "/v1/me")).json()) as { usage: { used: number } };
    expect(me.usage.used).toBe(1);
  });

  it("reads ids, lists duplicates and unreadable entries with reasons, and marks unseen ids pending", async () => {
    const key = await issue();
    const day = await picks(key);
    const screenedId = day.items[0]?.arxiv_id as string;
    const response = await send(key, "POST", "/v1/me/library", [
      screenedId,
      `https://arxiv.org/abs/${screenedId}v2`,
      "2001.00001",
      "not an id",
      42,
    ]);
    expect(response.status).toBe(200);
    const written = await body(response);
    expect(written.added).toEqual([
      { key: `arxiv:${screenedId}`, status: "ready" },
      { key: "arxiv:2001.00001", status: "pending" },
    ]);
    expect(written.duplicates).toEqual([
      { key: `arxiv:${screenedId}`, reason: expect.stringContaining("twice") },
    ]);
    expect(written.unreadable).toEqual([
      { item: "[3] not an id", reason: expect.stringContaining("not an arXiv id") },
      { item: "[4]", reason: expect.stringContaining("expected an arXiv id") },
    ]);
    expect(written.library_max).toBe(100);
    expect((await exported(key)).pending).toEqual(["arxiv:2001.00001"]);
  });

  it("round-trips Zotero's BibTeX and CSL-JSON exports through the profile's export", async () => {
    const key = await issue();
    const bib = await send(key, "PUT", "/v1/me/library", await exports("zotero.bib"), "application/x-bibtex");
    expect(bib.status).toBe(200);
    expect((await body(bib)).added.map((item: { key: string }) => item.key)).toEqual([
      "arxiv:2406.13352",
      "arxiv:2310.08560",
      "title:supervisory guidance on model risk management",
    ]);
    const csl = await send(key, "POST", "/v1/me/library", await exports("zotero-csl.json"));
    const cslBody = await body(csl);
    expect(cslBody.added.map((item: { key: string }) => item.key)).toEqual([
      "arxiv:2503.18813",
      "arxiv:2308.08155",
      "doi:10.1145/3597503.3639187",
    ]);
    expect(cslBody.unreadable).toEqual([
      {
        item: "[3] http://zotero.org/users/local/kX2hQv9a/items/EMPTY111",
        reason: "it names no arXiv id, DOI or title",
      },
    ]);
    const first = await exported(key);
    expect(first.library).toHaveLength(6);
    expect(first.library[0]).toMatchObject({
      id: "arxiv:2406.13352",
      title:
        "AgentDojo: A Dynamic Environment to Evaluate Prompt Injection Attacks and Defenses for LLM Agents",
      author: expect.arrayContaining([{ literal: "Mislav Balunović" }]),
      number: "arXiv:2406.13352",
    });
    // The export, PUT back under another key, is the same library.
    const other = await issue();
    expect((await send(other, "PUT", "/v1/me/library", first.library)).status).toBe(200);
    expect((await exported(other)).library).toEqual(first.library);
  });

  it("refuses malformed BibTeX whole, naming the entry and line", async () => {
    const key = await issue();
    const text = "@misc{good, title = {Fine}, eprint = {2401.00001}}\n@misc{broken,\n  title = {Unclosed\n";
    const response = await send(key, "PUT", "/v1/me/library", text, "application/x-bibtex");
    expect(response.status).toBe(422);
    const [issue0] = (await body(response)).detail;
    expect(issue0).toMatchObject({ type: "bibtex_syntax", loc: ["body", "broken", 4] });
    expect(issue0.msg).toMatch(/^BibTeX entry broken at line 4: /);
    expect((await exported(key)).library).toEqual([]);
  });

  it("says the bound when a library would pass the tier's, and writes nothing; 413 past 2 MiB", async () => {
    const key = await issue();
    const ids = Array.from({ length: 101 }, (_, i) => `2401.${String(10000 + i)}`);
    const response = await send(key, "PUT", "/v1/me/library", ids);
    expect(response.status).toBe(413);
    expect((await body(response)).detail).toBe(
      "The free tier's profile holds at most 100 library items; this would make 101, so nothing was written.",
    );
    expect((await exported(key)).version).toBe(0);
    const huge = await send(key, "PUT", "/v1/me/library", `["${"x".repeat(2 * 1024 * 1024)}"]`);
    expect(huge.status).toBe(413);
    const wrongType = await send(key, "PUT", "/v1/me/library", "2401.00001", "text/plain");
    expect(wrongType.status).toBe(415);
    const notAList = await send(key, "PUT", "/v1/me/library", { ids: [] });
    expect(notAList.status).toBe(422);
    expect((await body(notAList)).detail[0]).toMatchObject({ type: "list_type", loc: ["body"] });
  });

  it("rates screened papers only, 1 or -1, and clears a rating", async () => {
    const key = await issue();
    const id = (await picks(key)).items[1]?.arxiv_id as string;
    expect((await send(key, "PUT", `/v1/me/ratings/${id}`, { rating: 1 })).status).toBe(200);
    expect((await send(key, "PUT", "/v1/me/ratings/2001.00001", { rating: 1 })).status).toBe(404);
    const zero = await send(key, "PUT", `/v1/me/ratings/${id}`, { rating: 0 });
    expect(zero.status).toBe(422);
    expect((await body(zero)).detail[0].loc).toEqual(["body", "rating"]);
    const bad = await send(key, "PUT", "/v1/me/ratings/not-an-id", { rating: 1 });
    expect(bad.status).toBe(422);
    expect((await exported(key)).ratings).toEqual([{ arxiv_id: id, rating: 1 }]);
    expect((await send(key, "DELETE", `/v1/me/ratings/${id}`)).status).toBe(200);
    expect((await exported(key)).ratings).toEqual([]);
  });

  it("pins a followed author's paper first, with the reason", async () => {
    const key = await issue();
    const global = await picks(key, "?limit=25");
    const last = global.items.at(-1);
    const author = last?.authors[0] as string;
    const put = await send(key, "PUT", "/v1/me/follows", { authors: [author.toUpperCase()], phrases: [] });
    expect(put.status).toBe(200);
    const mine = await picks(key, "?limit=25");
    expect(mine.personal).toBe(true);
    expect(mine.items[0]?.authors).toContain(author);
    expect(mine.items[0]?.why_for_you).toMatchObject({
      followed_author: author.toUpperCase(),
      placed_by: "followed_author",
    });
  });

  it("learns from a library: the list changes, and why_for_you names the nearest library papers", async () => {
    const key = await issue();
    const global = await picks(key, "?limit=25");
    const liked = global.items.slice(-3).map((item) => item.arxiv_id);
    expect((await send(key, "PUT", "/v1/me/library", liked)).status).toBe(200);
    const profile = await exported(key);
    expect(profile.model).toMatchObject({
      profile_version: 1,
      positives: 3,
      relevance_version: sample.relevance.model.version,
    });
    const mine = await picks(key, "?limit=25");
    expect(mine.personal).toBe(true);
    expect(mine.items.map((item) => item.arxiv_id)).not.toEqual(global.items.map((item) => item.arxiv_id));
    const top = mine.items[0];
    expect(top?.why_for_you.placed_by).toMatch(/blend|must_read/);
    expect(top?.why_for_you.nearest.length).toBeGreaterThan(0);
    expect(liked).toContain(top?.why_for_you.nearest[0]?.arxiv_id);
  });

  it("refits a model stored in an older layout at its first list, and reads a profile stored plain", async () => {
    const key = await issue();
    const global = await picks(key, "?limit=25");
    const liked = global.items.slice(-3).map((item) => item.arxiv_id);
    expect((await send(key, "PUT", "/v1/me/library", liked)).status).toBe(200);
    const before = await picks(key, "?limit=25");
    const id = (await exported(key)).key_id;
    const stored = await context.store.getItem<Record<string, unknown>>(`reader:${id}:profile`);
    expect(Object.keys(stored ?? {})).toEqual(["deflated"]);
    // As the store held them before: the profile as a plain object, the model as dense columns.
    const profile = { ...(await context.readers.profile(id)), version: 2 };
    await context.store.setItem(`reader:${id}:profile`, profile);
    await context.store.removeItem(`reader:${id}:follows`);
    await context.store.setItem(`reader:${id}:model`, {
      profile_version: 1,
      relevance_version: sample.relevance.model.version,
      positives: 3,
      negatives: 400,
      intercept: 0,
      columns: [1, 2],
      weights: [0.5, -0.5],
      anchors: [],
    });
    await context.store.setItem(`reader:${id}:version`, 2);
    const after = await picks(key, "?limit=25");
    expect(after.profile_version).toBe(2);
    expect(after.items.map((item) => item.arxiv_id)).toEqual(before.items.map((item) => item.arxiv_id));
    expect(await context.store.getItem(`reader:${id}:model`)).toMatchObject({
      format: 2,
      profile_version: 2,
    });
    expect((await exported(key)).library.map((item) => item.number)).toEqual(
      liked.map((id) => `arXiv:${id}`),
    );
  });

  it("keeps each key's profile to itself, erases it whole, and erases it when the key is revoked", async () => {
    const [a, b] = [await issue(), await issue()];
    await send(a, "PUT", "/v1/me/follows", { authors: ["Ada Lovelace"], phrases: ["audit trail"] });
    expect((await exported(b)).follows).toEqual({ authors: [], phrases: [] });
    const idA = (await exported(a)).key_id;
    expect(await context.store.getKeys(`reader:${idA}`)).not.toEqual([]);
    const erased = await send(a, "DELETE", "/v1/me/profile");
    // The profile, its follows and its version: follows alone fit no model.
    expect((await body(erased)).erased).toBe(3);
    expect(await context.store.getKeys(`reader:${idA}`)).toEqual([]);
    expect((await exported(a)).version).toBe(0);

    await send(b, "PUT", "/v1/me/follows", { authors: ["Ada Lovelace"], phrases: [] });
    const idB = (await exported(b)).key_id;
    await context.keys.revoke(idB);
    expect(await context.store.getKeys(`reader:${idB}`)).toEqual([]);
    const refused = await send(b, "PUT", "/v1/me/follows", { authors: [], phrases: [] });
    expect(refused.status).toBe(401);
  });

  it("undoes a write that lands after another server revoked the key, and answers 401", async () => {
    const key = await issue();
    await send(key, "PUT", "/v1/me/follows", { authors: ["Ada Lovelace"], phrases: [] });
    const id = (await exported(key)).key_id;
    // Another server's key service on the same store: this server's key cache still holds the key.
    await createKeyService({ store: context.store }).revoke(id);
    const late = await send(key, "PUT", "/v1/me/follows", { authors: ["Grace Hopper"], phrases: [] });
    expect(late.status).toBe(401);
    expect((await body(late)).detail).toMatch(/revoked/);
    expect(await context.store.getKeys(`reader:${id}`)).toEqual([]);
  });

  it("refuses a write through a key another server rotated and moved, and leaves the profile moved to the new key as it was", async () => {
    const key = await issue();
    await send(key, "PUT", "/v1/me/follows", { authors: ["Ada Lovelace"], phrases: [] });
    const id = (await exported(key)).key_id;
    const rotated = await createKeyService({ store: context.store }).rotate(id);
    const late = await send(key, "PUT", "/v1/me/follows", { authors: ["Grace Hopper"], phrases: [] });
    expect(late.status).toBe(401);
    expect(await context.store.getKeys(`reader:${id}`)).toEqual([]);
    expect((await exported(rotated?.key as string)).follows.authors).toEqual(["Ada Lovelace"]);
  });

  it("keeps a write that holds the profile's lock while another server rotates the key: the move carries it", async () => {
    const inner = await createMemoryStore();
    let onVersion: (() => Promise<void>) | null = null;
    // The store of this server: after a write's version record, the hook runs (the write holds the lock).
    const store = new Proxy(inner, {
      get(target, prop) {
        if (prop === "setItem") {
          return async (...args: Parameters<Store["setItem"]>) => {
            await target.setItem(...args);
            const hook = onVersion;
            if (hook && args[0].endsWith(":version")) {
              onVersion = null;
              await hook();
            }
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as Store;
    const here = await testContext(sample.snapshots, { store, relevance: sample.relevance });
    const client = await clientFor("in-process", here);
    try {
      const key = (await here.keys.issue({ tier: "free", email: "reader@example.org", label: "reader" })).key;
      const put = (authors: string[]) =>
        client.call("/v1/me/follows", {
          method: "PUT",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ authors, phrases: [] }),
        });
      expect((await put(["Ada Lovelace"])).status).toBe(200);
      const profileOf = async (apiKey: string) =>
        (await (
          await client.call("/v1/me/profile", { headers: { "x-api-key": apiKey } })
        ).json()) as ProfileExport;
      const id = (await profileOf(key)).key_id;
      let rotation: ReturnType<KeyService["rotate"]> | null = null;
      onVersion = async () => {
        // Another server rotates: the old record is retired at once, the move waits for the lock.
        rotation = createKeyService({ store: inner }).rotate(id);
        while ((await findKeyById(inner, id))?.replaced_by == null) await sleep(2);
      };
      const during = await put(["Grace Hopper"]);
      expect(during.status).toBe(200);
      const rotated = await (rotation as unknown as ReturnType<KeyService["rotate"]>);
      expect((await profileOf(rotated?.key as string)).follows.authors).toEqual(["Grace Hopper"]);
      expect(await inner.getKeys(`reader:${id}`)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("keeps the profile when the key is rotated", async () => {
    const key = await issue();
    await send(key, "PUT", "/v1/me/follows", { authors: ["Grace Hopper"], phrases: [] });
    const rotated = await context.keys.rotate((await exported(key)).key_id);
    expect((await exported(rotated?.key as string)).follows.authors).toEqual(["Grace Hopper"]);
    expect(await context.store.getKeys(`reader:${rotated?.old.id}`)).toEqual([]);
  });

  it("never serves an erased profile's list again, here or on another server, when a new one reaches its version", async () => {
    const key = await issue();
    const global = await picks(key, "?limit=25");
    const erasedIds = global.items.slice(-3).map((item) => item.arxiv_id);
    const newIds = global.items.slice(-6, -3).map((item) => item.arxiv_id);
    // Another server on the same store, with caches of its own.
    const other = await clientFor(
      "in-process",
      await testContext(sample.snapshots, { store: context.store, relevance: sample.relevance }),
    );
    const picksThere = async () => {
      const response = await other.call("/v1/me/picks?limit=25", { headers: { "x-api-key": key } });
      expect(response.status).toBe(200);
      return (await body(response)) as PersonalPicks;
    };
    try {
      expect((await send(key, "PUT", "/v1/me/library", erasedIds)).status).toBe(200);
      // Both servers rank version 1 and keep it.
      for (const list of [await picks(key, "?limit=25"), await picksThere()]) {
        expect(list.profile_version).toBe(1);
        expect(erasedIds).toContain(list.items[0]?.why_for_you.nearest[0]?.arxiv_id);
      }
      expect((await send(key, "DELETE", "/v1/me/profile")).status).toBe(200);
      expect((await send(key, "PUT", "/v1/me/library", newIds)).status).toBe(200);
      for (const list of [await picks(key, "?limit=25"), await picksThere()]) {
        expect(list.profile_version).toBe(1);
        const nearest = list.items.flatMap((item) => item.why_for_you.nearest.map((paper) => paper.arxiv_id));
        expect(nearest.length).toBeGreaterThan(0);
        expect(nearest.filter((id) => id !== null && erasedIds.includes(id))).toEqual([]);
      }
    } finally {
      await other.close();
    }
  });

  it("refuses picks of a malformed day, and of one outside the tier's history", async () => {
    const key = await issue();
    const bad = await send(key, "GET", "/v1/me/picks?date=2026-02-30");
    expect(bad.status).toBe(422);
    expect((await body(bad)).detail[0]).toMatchObject({
      type: "date_from_datetime_parsing",
      loc: ["query", "date"],
    });
    expect((await send(key, "GET", "/v1/me/picks?date=2020-01-01")).status).toBe(403);
    expect((await send(key, "GET", "/v1/me/picks?limit=0")).status).toBe(422);
  });
});

describe("the profile-write rate", () => {
  it("refuses writes past its rate with 429 and spends no read quota", async () => {
    const context = await testContext(sample.snapshots, {
      relevance: sample.relevance,
      // A still clock, so the minute cannot end between the writes and the 429 expected.
      now: () => Date.parse("2026-11-29T12:00:30Z"),
      config: { profileWriteRate: { name: "profile-writes", limit: 2, windowSeconds: 60 } },
    });
    const { call, close } = await clientFor("in-process", context);
    const { key } = await context.keys.issue({ tier: "free", email: "r@example.org", label: "r" });
    const put = () =>
      call("/v1/me/follows", {
        method: "PUT",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ authors: ["A"] }),
      });
    expect((await put()).status).toBe(200);
    expect((await put()).status).toBe(200);
    const third = await put();
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).not.toBeNull();
    const me = await body(await call("/v1/me", { headers: { "x-api-key": key } }));
    expect(me.usage.used).toBe(0);
    await close();
  });
});

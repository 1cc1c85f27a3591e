import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PersonalPicks, ProfileExport } from "../../../pipeline/domain/reader-answers.ts";
import type { CompiledRelevance } from "../../../pipeline/domain/relevance-model.ts";
import { createHttpClient, type HttpClient } from "../../../pipeline/http.ts";
import { loadRelevanceModel, newestModelPath } from "../../../pipeline/relevance-file.ts";
import { lookupArxivTexts } from "../../../pipeline/sources/arxiv-api.ts";
import type { AppContext } from "../../../server/context.ts";
import {
  type ArxivLookup,
  completePendingItems,
  pendingByKey,
  resolvePendingItems,
} from "../../../server/readers/pending-lookup.ts";
import { publishedScreenedSource } from "../../../server/readers/screened-source.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import {
  type FakeUpstream,
  fixtureText,
  type Reply,
  startFakeUpstream,
  xmlReply,
} from "../../helpers/fake-upstream.ts";
import { publishRankedSampleDays } from "../../helpers/published.ts";

// The daily job's completion of pending library items, as `picks curate` runs it after writing a day:
// against a loopback fake arXiv API replaying a real recorded answer to an `id_list` query (one id it
// knows, 1707.08567, and one it does not).

const API_PATH = "/api/query";
const KNOWN = "1707.08567";
const UNKNOWN = "2001.00001";

let publicDir: string;
let snapshots: SnapshotCache;
let relevance: CompiledRelevance;
let fake: FakeUpstream;
let client: HttpClient;
beforeAll(async () => {
  publicDir = (await publishRankedSampleDays()).publicDir;
  snapshots = await createSnapshotCache({ publicDir });
  relevance = await loadRelevanceModel(await newestModelPath());
  fake = await startFakeUpstream();
  client = createHttpClient({
    userAgent: "Research-Picks/test (mailto:ops@example.org)",
    retries: 0,
    backoffBaseMs: 1,
    upstreams: { arxiv: { concurrency: 1, minIntervalMs: 50 } },
  });
});
afterAll(async () => {
  snapshots.close();
  await client.close();
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

describe("pending library items, completed by the daily job", () => {
  let context: AppContext;
  let call: Call;
  let close: () => Promise<void>;
  const lookup: ArxivLookup = (ids) => lookupArxivTexts({ client, apiUrl: `${fake.url}${API_PATH}` }, ids);
  const send = (key: string, method: string, path: string, body?: unknown) =>
    call(path, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const exported = async (key: string) =>
    (await (await send(key, "GET", "/v1/me/profile")).json()) as ProfileExport;
  const complete = (withLookup: ArxivLookup | null) =>
    completePendingItems({
      store: context.store,
      now: Date.now,
      lookup: withLookup,
      publicDir,
      relevance: async () => relevance,
    });

  beforeAll(async () => {
    context = await testContext(snapshots, {
      relevance,
      config: { profileWriteRate: { name: "profile-writes", limit: 1000, windowSeconds: 60 } },
    });
    ({ call, close } = await clientFor("in-process", context));
  });
  afterAll(() => close());

  it("makes an id arXiv knows ready with its title and abstract, refits, and keeps the unknown one pending with why", async () => {
    const { key } = await context.keys.issue({ tier: "free", email: "r@example.org", label: "r" });
    const day = (await (await send(key, "GET", "/v1/me/picks")).json()) as PersonalPicks;
    const screenedId = day.items[0]?.arxiv_id as string;
    const written = await send(key, "PUT", "/v1/me/library", [screenedId, KNOWN, UNKNOWN]);
    expect(((await written.json()) as { added: unknown }).added).toEqual([
      { key: `arxiv:${screenedId}`, status: "ready" },
      { key: `arxiv:${KNOWN}`, status: "pending" },
      { key: `arxiv:${UNKNOWN}`, status: "pending" },
    ]);
    const before = await exported(key);
    expect(before.pending_reasons).toEqual([
      { key: `arxiv:${KNOWN}`, reason: expect.stringContaining("waiting"), looked_up_at: null },
      { key: `arxiv:${UNKNOWN}`, reason: expect.stringContaining("waiting"), looked_up_at: null },
    ]);
    expect(before.model?.positives).toBe(1);

    fake.route("GET", API_PATH, xmlReply("arxiv/api-id-list-one-invalid.xml"));
    const report = await complete(lookup);
    expect(report).toEqual({
      profiles: 1,
      completed: 1,
      // The id added from the day's screened papers takes its text from there, not from arXiv.
      screened: 1,
      asked: 2,
      found: 1,
      unknown: 1,
      failed: 0,
    });
    // One request for both ids, the way the source asks for details.
    expect(fake.seen(API_PATH).map((request) => request.query.get("id_list"))).toEqual([
      `${KNOWN},${UNKNOWN}`,
    ]);

    const after = await exported(key);
    expect(after.version).toBe(before.version + 1);
    expect(after.pending).toEqual([`arxiv:${UNKNOWN}`]);
    expect(after.pending_reasons).toEqual([
      {
        key: `arxiv:${UNKNOWN}`,
        reason: expect.stringContaining("arXiv does not know"),
        looked_up_at: expect.any(String),
      },
    ]);
    const completed = after.library.find((item) => item.id === `arxiv:${KNOWN}`);
    expect(completed?.title).toBe(
      "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications",
    );
    expect(completed?.abstract?.length).toBeGreaterThan(100);
    // The model learned from the completed paper too, and the list is ranked with the new version.
    expect(after.model?.positives).toBe(2);
    expect(after.model?.profile_version).toBe(after.version);
    const list = (await (await send(key, "GET", "/v1/me/picks")).json()) as PersonalPicks;
    expect(list.profile_version).toBe(after.version);
  });

  it("keeps ids pending with the API's failure as the reason when arXiv fails, and asks nothing offline", async () => {
    const { key } = await context.keys.issue({ tier: "free", email: "f@example.org", label: "f" });
    expect((await send(key, "PUT", "/v1/me/library", ["2002.00002"])).status).toBe(200);
    fake.route("GET", API_PATH, { status: 503, body: "down for maintenance" });
    const report = await complete(lookup);
    // The first reader's unknown id waits UNKNOWN_RETRY_DAYS before it is asked again.
    expect(report).toMatchObject({ completed: 0, asked: 1, found: 0, failed: 1 });
    const failed = await exported(key);
    expect(failed.pending).toEqual(["arxiv:2002.00002"]);
    expect(failed.pending_reasons[0]?.reason).toMatch(/^the arXiv API failed: .*503/);

    fake.requests.length = 0;
    const offline = await complete(null);
    expect(offline).toMatchObject({ asked: 0, completed: 0 });
    expect(fake.requests).toHaveLength(0);
    expect((await exported(key)).pending_reasons[0]?.reason).toContain("offline");
  });

  it("erasing a profile leaves nothing of its lookups behind", async () => {
    const { key, record } = await context.keys.issue({ tier: "free", email: "e@example.org", label: "e" });
    expect((await send(key, "PUT", "/v1/me/library", [UNKNOWN])).status).toBe(200);
    fake.route("GET", API_PATH, xmlReply("arxiv/api-id-list-one-invalid.xml"));
    await complete(lookup);
    expect(await context.store.getItem(`reader:${record.id}:lookups`)).not.toBeNull();
    expect((await send(key, "DELETE", "/v1/me/profile")).status).toBe(200);
    expect(await context.store.getKeys(`reader:${record.id}`)).toEqual([]);
  });
});

// arXiv refuses a whole query, with an error entry, for one id it cannot read: the fake does so for
// POISON (the recorded answer with its entry turned into the API's error entry), answers KNOWN with the
// recorded entry, and every other id with the recorded empty feed.
const POISON = "2105.99999";
const arxivLike: Reply = (request) => {
  const ids = (request.query.get("id_list") ?? "").split(",");
  if (ids.includes(POISON)) {
    const refused = fixtureText("arxiv/api-id-list-one-invalid.xml").replace(
      "<id>http://arxiv.org/abs/1707.08567v1</id>",
      `<id>http://arxiv.org/api/errors#incorrect_id_format_for_${POISON}</id>`,
    );
    return { headers: { "content-type": "application/atom+xml; charset=utf-8" }, body: refused };
  }
  return xmlReply(
    ids.includes(KNOWN) ? "arxiv/api-id-list-one-invalid.xml" : "arxiv/api-id-list-empty-feed.xml",
  );
};

describe("pending lookups that a few bad ids cannot starve", () => {
  const DAY = 86_400_000;
  let clock = Date.parse("2026-11-29T06:00:00Z");
  let context: AppContext;
  let call: Call;
  let close: () => Promise<void>;
  const lookup: ArxivLookup = (ids) => lookupArxivTexts({ client, apiUrl: `${fake.url}${API_PATH}` }, ids);

  beforeAll(async () => {
    context = await testContext(snapshots, { relevance, now: () => clock });
    ({ call, close } = await clientFor("in-process", context));
  });
  afterAll(() => close());

  it("asks again in halves a batch refused for one id, so the good ids beside it resolve", async () => {
    fake.route("GET", API_PATH, arxivLike);
    const fillers = ["2101.00001", "2101.00002", "2101.00003", "2101.00004", "2101.00005", "2101.00006"];
    const ids = [...fillers, POISON, KNOWN].sort();
    const texts = await lookupArxivTexts({ client, apiUrl: `${fake.url}${API_PATH}`, batchSize: 8 }, ids);
    expect([...texts.found.keys()]).toEqual([KNOWN]);
    expect([...texts.failed.keys()]).toEqual([POISON]);
    expect(texts.failed.get(POISON)).toMatch(/refused the query/);
    expect(texts.unknown.sort()).toEqual(fillers);
    // 8, then 4 + 4, then 2 + 2 of the refused half, then 1 + 1.
    expect(fake.seen(API_PATH)).toHaveLength(7);
  });

  it("never asks ids that cannot exist, asks the least recently asked first, and backs off unknown ids", async () => {
    fake.route("GET", API_PATH, arxivLike);
    const { key } = await context.keys.issue({ tier: "free", email: "s@example.org", label: "s" });
    const [a, b, c] = ["2101.00011", "2101.00012", "2101.00013"];
    const library = ["2413.12345", "zzz/0101001", a, b, c];
    const put = await call("/v1/me/library", {
      method: "PUT",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(library),
    });
    expect(put.status).toBe(200);
    const run = async () => {
      fake.requests.length = 0;
      const report = await resolvePendingItems(
        {
          store: context.store,
          readers: context.readers,
          screened: publishedScreenedSource(snapshots),
          lookup,
          now: () => clock,
          maxLookups: 2,
        },
        await pendingByKey(context.store),
      );
      return { report, asked: fake.seen(API_PATH).map((request) => request.query.get("id_list")) };
    };
    const reasons = async () => {
      const profile = (await (
        await call("/v1/me/profile", { headers: { "x-api-key": key } })
      ).json()) as ProfileExport;
      return Object.fromEntries(profile.pending_reasons.map((entry) => [entry.key, entry.reason]));
    };

    const first = await run();
    expect(first.asked).toEqual([`${a},${b}`]);
    expect(first.report).toMatchObject({ asked: 2, unknown: 2, failed: 0 });
    expect(await reasons()).toEqual({
      "arxiv:2413.12345": expect.stringMatching(/cannot be an arXiv id \(month 13 does not exist\)/),
      "arxiv:zzz/0101001": expect.stringMatching(/cannot be an arXiv id \("zzz" is not an arXiv archive\)/),
      [`arxiv:${a}`]: expect.stringContaining("arXiv does not know"),
      [`arxiv:${b}`]: expect.stringContaining("arXiv does not know"),
      [`arxiv:${c}`]: expect.stringContaining("waiting"),
    });

    // The next day the one never asked goes, and the ids arXiv did not know wait their week.
    clock += DAY;
    expect((await run()).asked).toEqual([c]);
    clock += DAY;
    expect((await run()).asked).toEqual([]);
    expect(Object.values(await reasons()).filter((reason) => reason.includes("does not know"))).toHaveLength(
      3,
    );

    // A week on, the least recently asked go first.
    clock += 6 * DAY;
    expect((await run()).asked).toEqual([`${a},${b}`]);
    clock += DAY;
    expect((await run()).asked).toEqual([c]);
  });
});

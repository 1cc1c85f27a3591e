import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PersonalPicks, ProfileExport } from "../../../pipeline/domain/reader-answers.ts";
import type { CompiledRelevance } from "../../../pipeline/domain/relevance-model.ts";
import { createHttpClient, type HttpClient } from "../../../pipeline/http.ts";
import { loadRelevanceModel, newestModelPath } from "../../../pipeline/relevance-file.ts";
import { lookupArxivTexts } from "../../../pipeline/sources/arxiv-api.ts";
import type { AppContext } from "../../../server/context.ts";
import { type ArxivLookup, completePendingItems } from "../../../server/readers/pending-lookup.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { type FakeUpstream, startFakeUpstream, xmlReply } from "../../helpers/fake-upstream.ts";
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
    // The first reader's unknown id is asked again too: an id not yet announced may be known tomorrow.
    expect(report).toMatchObject({ completed: 0, asked: 2, found: 0, failed: 2 });
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

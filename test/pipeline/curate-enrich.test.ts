import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCitationLookup } from "../../pipeline/citations/citation-lookup.ts";
import { curate } from "../../pipeline/curate.ts";
import type { Rubric } from "../../pipeline/domain/rubric.ts";
import type { RunRecord } from "../../pipeline/domain/run-record.ts";
import { DEFAULT_SELECTION } from "../../pipeline/domain/selection.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import { createHttpClient, type HttpClient } from "../../pipeline/http.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { createArxivSource } from "../../pipeline/sources/arxiv-source.ts";
import { createFileSource } from "../../pipeline/sources/file-source.ts";
import { type FakeReply, type SeenRequest, wrappedBody } from "../helpers/fake-upstream.ts";
import { useFakeUpstream } from "../helpers/fake-upstream-hooks.ts";
import { LISTING_250, LISTING_PARTIAL } from "../helpers/fixtures.ts";

const S2_BATCH = "/graph/v1/paper/batch";
const RECORD = wrappedBody<unknown[]>("semantic-scholar/paper-batch-4-ids-one-null.json")[1] as {
  citationCount: number;
};

/** The recorded S2 paper for every id asked, with a citation count that says which run answered. */
const s2Answer =
  (citationCount: number) =>
  (request: SeenRequest): FakeReply => ({
    body: JSON.stringify(
      (JSON.parse(request.body) as { ids: string[] }).ids.map(() => ({ ...RECORD, citationCount })),
    ),
  });

const fake = useFakeUpstream();
let client: HttpClient;
let rubric: Rubric;
beforeAll(async () => {
  rubric = await loadRubric();
});
afterEach(() => client?.close());

async function site() {
  const root = await mkdtemp(join(tmpdir(), "picks-enrich-"));
  return { outDir: join(root, "public"), runsDir: join(root, "runs") };
}

function run(
  dirs: { outDir: string; runsDir: string },
  date: string,
  file: string,
  now: string,
  withCitations = true,
) {
  client = createHttpClient({ userAgent: "test", retries: 1, backoffBaseMs: 1 });
  return curate({
    date,
    source: createFileSource(file),
    ...dirs,
    rubric,
    selection: DEFAULT_SELECTION,
    now: () => new Date(now),
    ...(withCitations
      ? {
          citations: createCitationLookup({
            semanticScholar: { client, baseUrl: `${fake.url}/graph/v1` },
            openAlex: { client, baseUrl: fake.url },
            now: () => new Date(now),
          }),
        }
      : { citationsSkipped: "turned off with --no-citations" }),
    httpCounts: () => client.counts(),
  });
}

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, "utf8")) as T;

describe("the enrich stage", () => {
  it("attaches citations to the picks and refreshes the last 30 days' picks in the same batch", async () => {
    const dirs = await site();
    fake.route("POST", S2_BATCH, s2Answer(5));
    const first = await run(dirs, "2026-06-12", LISTING_250, "2026-06-12T06:00:00Z");
    const firstIds = first.snapshot.picks.map((pick) => pick.arxiv_id);
    expect(firstIds.length).toBeGreaterThan(0);
    expect(first.snapshot.picks.every((pick) => pick.citations?.status === "found")).toBe(true);
    expect(first.record.citations).toMatchObject({
      status: "done",
      found_semantic_scholar: firstIds.length,
      refreshed_days: [],
    });
    expect(first.record.http.by_upstream.semantic_scholar).toEqual({ requests: 1, retries: 0, failures: 0 });

    fake.route("POST", S2_BATCH, s2Answer(9));
    const second = await run(dirs, "2026-06-25", LISTING_PARTIAL, "2026-06-25T06:00:00Z");
    const asked = fake.seen(S2_BATCH).at(-1);
    const secondIds = second.snapshot.picks.map((pick) => pick.arxiv_id);
    expect(JSON.parse(asked?.body ?? "").ids).toEqual([...secondIds, ...firstIds].map((id) => `ARXIV:${id}`));
    expect(second.record.citations).toMatchObject({ status: "done", refreshed_days: ["2026-06-12"] });

    const refreshedDay = await readJson<DailySnapshot>(join(dirs.outDir, "v1", "daily", "2026-06-12.json"));
    expect(refreshedDay.picks.map((pick) => pick.citations)).toEqual(
      firstIds.map(() =>
        expect.objectContaining({
          status: "found",
          citation_count: 9,
          fetched_at: "2026-06-25T06:00:00.000Z",
        }),
      ),
    );
    expect(refreshedDay.generated_at).toBe(first.snapshot.generated_at);
    expect(second.files).toContain(join(dirs.outDir, "v1", "daily", "2026-06-12.json"));
  });

  it("publishes a correct snapshot with citations marked missing, and why, when both indexes fail", async () => {
    const dirs = await site();
    fake.route("POST", S2_BATCH, { status: 503, body: "Service Unavailable" });
    fake.route("GET", "/works", { status: 500, body: "oops" });
    const result = await run(dirs, "2026-06-12", LISTING_250, "2026-06-12T06:00:00Z");
    expect(result.snapshot.picks.length).toBeGreaterThan(0);
    for (const pick of result.snapshot.picks) {
      expect(pick.citations).toMatchObject({ status: "missing", checked_at: "2026-06-12T06:00:00.000Z" });
      expect(pick.citations?.status === "missing" && pick.citations.reason).toMatch(
        /^Semantic Scholar failed \(.*HTTP 503.*\); OpenAlex failed \(.*HTTP 500.*\)$/,
      );
    }
    const written = await readJson<DailySnapshot>(join(dirs.outDir, "v1", "daily", "2026-06-12.json"));
    expect(written.picks[0]?.citations?.status).toBe("missing");
    const record = await readJson<RunRecord>(join(dirs.runsDir, "2026-06-12.json"));
    expect(record.citations).toMatchObject({ status: "done", missing: result.snapshot.picks.length });
    expect(record.http.failures).toBe(2);
  });

  it("keeps a day's figures when its refresh comes back missing", async () => {
    const dirs = await site();
    fake.route("POST", S2_BATCH, s2Answer(5));
    await run(dirs, "2026-06-12", LISTING_250, "2026-06-12T06:00:00Z");
    const before = await readFile(join(dirs.outDir, "v1", "daily", "2026-06-12.json"), "utf8");
    fake.route("POST", S2_BATCH, { status: 503 });
    fake.route("GET", "/works", { status: 503 });
    const second = await run(dirs, "2026-06-25", LISTING_PARTIAL, "2026-06-25T06:00:00Z");
    expect(second.record.citations).toMatchObject({ status: "done", refreshed_days: [] });
    expect(second.files).not.toContain(join(dirs.outDir, "v1", "daily", "2026-06-12.json"));
    expect(await readFile(join(dirs.outDir, "v1", "daily", "2026-06-12.json"), "utf8")).toBe(before);
  });

  it("records why citations were skipped and publishes `citations: null`", async () => {
    const dirs = await site();
    const result = await run(dirs, "2026-06-12", LISTING_250, "2026-06-12T06:00:00Z", false);
    expect(result.snapshot.picks.every((pick) => pick.citations === null)).toBe(true);
    expect(result.record.citations).toEqual({ status: "skipped", reason: "turned off with --no-citations" });
    expect(fake.requests).toHaveLength(0);
  });

  it("leaves the previous snapshots untouched when the source fails", async () => {
    const dirs = await site();
    fake.route("POST", S2_BATCH, s2Answer(5));
    await run(dirs, "2026-06-12", LISTING_250, "2026-06-12T06:00:00Z");
    const files = ["daily/2026-06-12.json", "daily/latest.json", "recent.json", "stats.json"];
    const before = await Promise.all(files.map((file) => readFile(join(dirs.outDir, "v1", file), "utf8")));

    fake.route("GET", "/atom/cs.AI", { status: 503, body: "down" });
    client = createHttpClient({ userAgent: "test", retries: 1, backoffBaseMs: 1 });
    const failed = curate({
      date: "2026-06-13",
      source: createArxivSource({ client, categories: ["cs.AI"], listingUrl: `${fake.url}/atom` }),
      ...dirs,
      rubric,
      selection: DEFAULT_SELECTION,
      now: () => new Date("2026-06-13T06:00:00Z"),
    });
    await expect(failed).rejects.toThrow("arxiv: GET http://127.0.0.1");
    const after = await Promise.all(files.map((file) => readFile(join(dirs.outDir, "v1", file), "utf8")));
    expect(after).toEqual(before);
  });
});

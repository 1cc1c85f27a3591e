import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCurate } from "../../../cli/curate-command.ts";
import type { Output } from "../../../cli/output.ts";
import { createCitationLookup } from "../../../pipeline/citations/citation-lookup.ts";
import type { BenchNote } from "../../../pipeline/domain/bench-note.ts";
import type { FirmDay } from "../../../pipeline/domain/bench-scoring.ts";
import { DEFAULT_SELECTION } from "../../../pipeline/domain/selection.ts";
import { createHttpClient, type HttpClient } from "../../../pipeline/http.ts";
import { createFileSource } from "../../../pipeline/sources/file-source.ts";
import { createSampleSource } from "../../../pipeline/sources/sample-source.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { createStoreFromEnv } from "../../../server/store/from-env.ts";
import type { Store } from "../../../server/store/types.ts";
import { type Call, clientFor } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import {
  type FakeUpstream,
  type SeenRequest,
  startFakeUpstream,
  wrappedBody,
} from "../../helpers/fake-upstream.ts";
import { LISTING_250, readListing } from "../../helpers/fixtures.ts";

// Two firms with different watchlists and rubrics, through `picks curate`'s own job on the three sample
// days and the recorded 250-candidate listing day, then through the HTTP API: each sees its own view,
// neither sees the other's. Citation figures come from recorded Semantic Scholar bodies on a fake index.

const S2_BATCH = "/graph/v1/paper/batch";
const RECORD = wrappedBody<unknown[]>("semantic-scholar/paper-batch-4-ids-one-null.json")[1] as Record<
  string,
  unknown
>;
const CITING = wrappedBody<{ data: Array<{ citingPaper: { paperId: string; title: string } }> }>(
  "semantic-scholar/paper-citations-page1.json",
)
  .data.slice(0, 3)
  .map((entry) => entry.citingPaper);
const WATCHED = "1706.03762";
const silent: Output = { progress() {}, line() {}, json() {} };

// What the index says on each run: the watched paper's count grows, and on the last day it lists citing papers.
let citationCount = 0;
let citing: Array<{ paperId: string; title: string }> = [];
const s2 = (request: SeenRequest) => ({
  body: JSON.stringify(
    (JSON.parse(request.body) as { ids: string[] }).ids.map((id) => ({
      ...RECORD,
      externalIds: { ArXiv: id.replace(/^ARXIV:/, "") },
      citationCount,
      citations: citing.map((paper) => ({ ...paper, externalIds: null, year: 2026, citationCount: 1 })),
    })),
  ),
});

let fake: FakeUpstream;
let client: HttpClient;
let store: Store;
let snapshots: SnapshotCache;
let call: Call;
let close: () => Promise<void>;
const keys = { gov: "", infra: "", enterprise: "", free: "" };
const root = { publicDir: "", runsDir: "" };

const as = (key: string, path: string, init: RequestInit = {}) =>
  call(path, { ...init, headers: { "x-api-key": key, "content-type": "application/json", ...init.headers } });
const put = (key: string, path: string, body: unknown) =>
  as(key, path, { method: "PUT", body: JSON.stringify(body) });

// A governance author and term from the recorded listing, so the hit is real.
const listing = readListing(LISTING_250);
const governancePaper = listing.find((c) => /prompt injection/i.test(`${c.title} ${c.summary}`));

async function curateDay(date: string, source: ReturnType<typeof createSampleSource>, count: number) {
  citationCount = count;
  await runCurate({
    date,
    source,
    outDir: root.publicDir,
    runsDir: root.runsDir,
    selection: DEFAULT_SELECTION,
    out: silent,
    citations: createCitationLookup({
      semanticScholar: { client, baseUrl: `${fake.url}/graph/v1` },
      now: () => new Date(`${date}T06:00:00Z`),
    }),
  });
}

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "picks-bench-"));
  Object.assign(root, { publicDir: join(dir, "public"), runsDir: join(dir, "runs") });
  // The curate job opens the configured store, as the CLI does: the embedded SQLite file in this folder.
  process.env.STATE_DIR = join(dir, "state");
  delete process.env.REDIS_URL;
  delete process.env.STATE_STORE;
  store = await createStoreFromEnv(process.env);
  fake = await startFakeUpstream();
  fake.route("POST", S2_BATCH, s2);
  client = createHttpClient({ userAgent: "test", retries: 0, backoffBaseMs: 1 });

  const setup = await testContext(await createSnapshotCache({ publicDir: root.publicDir }), { store });
  const issue = async (tier: "bench" | "enterprise" | "free", firm?: string) =>
    (await setup.keys.issue({ tier, email: "a@example.org", label: "t", ...(firm ? { firm } : {}) })).key;
  keys.gov = await issue("bench", "gov-bank");
  keys.infra = await issue("bench", "infra-fund");
  keys.enterprise = await issue("enterprise");
  keys.free = await issue("free");
  ({ call, close } = await clientFor("in-process", setup));
  expect(governancePaper).toBeDefined();
  const author = governancePaper?.authors[0] as string;
  expect(
    (
      await put(keys.gov, "/v1/bench/watchlist", {
        papers: [`arXiv:${WATCHED}v5`],
        authors: [author],
        terms: ["prompt injection"],
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await put(keys.gov, "/v1/bench/rubric", {
        weights: { A6: 3 },
        signals: [{ axis: "A6", terms: ["model risk"], weight: 2 }],
      })
    ).status,
  ).toBe(200);
  expect(
    (await put(keys.infra, "/v1/bench/watchlist", { terms: ["inference serving", "latency"] })).status,
  ).toBe(200);
  expect(
    (
      await put(keys.infra, "/v1/bench/rubric", {
        weights: { A1: 3, A3: 3, A4: 0, A5: 0, A6: 0 },
        min_total: 10,
      })
    ).status,
  ).toBe(200);
  await close();

  const sample = createSampleSource();
  await curateDay("2026-11-18", sample, 100);
  await curateDay("2026-11-19", sample, 110);
  citing = CITING;
  await curateDay("2026-11-20", sample, 130);
  await curateDay("2026-06-12", createFileSource(LISTING_250), 90);

  snapshots = await createSnapshotCache({ publicDir: root.publicDir });
  ({ call, close } = await clientFor("in-process", await testContext(snapshots, { store })));
}, 120_000);

afterAll(async () => {
  await close?.();
  snapshots?.close();
  await client?.close();
  await fake?.close();
  await store?.close();
});

const picksOf = async (key: string): Promise<FirmDay[]> =>
  ((await (await as(key, "/v1/bench/picks?days=366")).json()) as { days: FirmDay[] }).days;
const governance = (day: FirmDay) =>
  day.picks
    .slice(0, 3)
    .flatMap((p) => p.axes.filter((a) => ["A4", "A5", "A6"].includes(a.axis)).map((a) => a.score));
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

describe("two firms over the sample days and the recorded listing day", () => {
  it("each firm has a view of every published day, scored under its own rubric version", async () => {
    const [gov, infra] = [await picksOf(keys.gov), await picksOf(keys.infra)];
    expect(gov.map((d) => d.date)).toEqual(["2026-11-20", "2026-11-19", "2026-11-18", "2026-06-12"]);
    expect(infra.map((d) => d.date)).toEqual(gov.map((d) => d.date));
    const listingDay = gov.at(-1) as FirmDay;
    expect(listingDay.screened).toBe(250);
    for (const day of gov) for (const pick of day.picks) expect(pick.firm_rubric_version).toBe(1);
    expect(gov[0]?.picks[0]?.rubric_version).toMatch(/^\d{4}\./);
  });

  it("the firm weighting A6 x3 gets governance papers first; the infrastructure firm does not", async () => {
    const [gov, infra] = [await picksOf(keys.gov), await picksOf(keys.infra)];
    const listingDay = (days: FirmDay[]) => days.find((d) => d.date === "2026-06-12") as FirmDay;
    const govFirst = listingDay(gov).picks[0];
    expect(govFirst?.axes[0]?.axis).toBe("A6");
    expect(govFirst?.axes[0]?.evidence.length).toBeGreaterThan(0);
    expect(mean(governance(listingDay(gov)))).toBeGreaterThan(mean(governance(listingDay(infra))));
    expect(listingDay(gov).picks.map((p) => p.arxiv_id)).not.toEqual(
      listingDay(infra).picks.map((p) => p.arxiv_id),
    );
    for (const pick of listingDay(infra).picks) expect(pick.axes.some((a) => a.axis === "A6")).toBe(false);
  });

  it("each firm sees its own author and term hits", async () => {
    const [gov, infra] = [await picksOf(keys.gov), await picksOf(keys.infra)];
    const govHits = gov.flatMap((d) => d.hits);
    expect(govHits.some((h) => h.arxiv_id === governancePaper?.id && h.authors.length === 1)).toBe(true);
    expect(govHits.every((h) => h.terms.every((t) => t.term === "prompt injection"))).toBe(true);
    const infraHits = infra.flatMap((d) => d.hits);
    expect(infraHits.length).toBeGreaterThan(0);
    expect(
      infraHits.every(
        (h) =>
          h.authors.length === 0 && h.terms.every((t) => ["inference serving", "latency"].includes(t.term)),
      ),
    ).toBe(true);
  });

  it("the watched paper's citation change over the week comes from the index's answers", async () => {
    const tracking = (await (await as(keys.gov, "/v1/bench/tracking?days=30")).json()) as {
      changes: Array<{ arxiv_id: string; from: number; to: number; change: number; new_citing: unknown[] }>;
    };
    expect(tracking.changes).toEqual([
      expect.objectContaining({ arxiv_id: WATCHED, from: 100, to: 130, change: 30 }),
    ]);
    const note = (await (await as(keys.gov, "/v1/bench/notes/2026-W47")).json()) as BenchNote;
    expect(note.citations[0]).toMatchObject({ arxiv_id: WATCHED, from: 100, to: 130, change: 30 });
    expect(note.citations[0]?.new_citing.map((p) => p.title).sort()).toEqual(
      CITING.map((p) => p.title).sort(),
    );
    expect(note.published_days).toEqual(["2026-11-18", "2026-11-19", "2026-11-20"]);
    expect(note.picks.length).toBe(
      (await picksOf(keys.gov)).slice(0, 3).reduce((n, d) => n + d.picks.length, 0),
    );
    const markdown = await (
      await as(keys.gov, "/v1/bench/notes/2026-W47", { headers: { accept: "text/markdown" } })
    ).text();
    expect(markdown).toContain(`${WATCHED}: 100 to 130 citations (+30)`);
    // The infrastructure firm watches no paper: its note has no citation lines.
    const infraNote = (await (await as(keys.infra, "/v1/bench/notes/2026-W47")).json()) as BenchNote;
    expect(infraNote.citations).toEqual([]);
  });

  it("the public snapshots know nothing of the firms", async () => {
    const latest = JSON.stringify(snapshots.days());
    expect(latest).not.toContain("gov-bank");
    expect(latest).not.toContain("firm_total");
  });
});

describe("isolation", () => {
  const paths = [
    "/v1/bench/watchlist",
    "/v1/bench/rubric",
    "/v1/bench/picks",
    "/v1/bench/tracking",
    "/v1/bench/notes",
    "/v1/bench/notes/2026-W47",
  ];

  it.each(paths)("%s: 403 for enterprise and free keys", async (path) => {
    for (const key of [keys.enterprise, keys.free]) {
      const answer = await as(key, path);
      expect(answer.status).toBe(403);
      expect(await answer.text()).not.toMatch(/gov-bank|infra-fund/);
    }
  });

  it("each firm reads only its own watchlist, rubric and notes", async () => {
    const govList = await (await as(keys.gov, "/v1/bench/watchlist")).json();
    const infraList = await (await as(keys.infra, "/v1/bench/watchlist")).json();
    expect(govList).toMatchObject({ papers: [WATCHED], terms: ["prompt injection"] });
    expect(infraList).toMatchObject({ papers: [], authors: [], terms: ["inference serving", "latency"] });
    const infraText = JSON.stringify([
      infraList,
      await (await as(keys.infra, "/v1/bench/rubric")).json(),
      await (await as(keys.infra, "/v1/bench/picks?days=366")).json(),
      await (await as(keys.infra, "/v1/bench/tracking?days=366")).json(),
      await (await as(keys.infra, "/v1/bench/notes/2026-W47")).json(),
    ]);
    expect(infraText).not.toContain("gov-bank");
    expect(infraText).not.toContain(WATCHED);
    // Paper texts may say anything; what must not show is the other firm's settings taking effect.
    expect(infraText).not.toContain('"term":"prompt injection"');
    expect(infraText).not.toContain('"term":"model risk"');
  });

  it("a refused rubric or watchlist leaves the stored version as it was", async () => {
    const before = await (await as(keys.gov, "/v1/bench/rubric")).json();
    const bad = await put(keys.gov, "/v1/bench/rubric", {
      weights: { A6: 4 },
      signals: Array(51).fill({ axis: "A6", terms: ["x"], weight: 1 }),
    });
    expect(bad.status).toBe(422);
    const detail = ((await bad.json()) as { detail: Array<{ type: string; loc: unknown[] }> }).detail;
    expect(detail.map((d) => [d.type, d.loc])).toEqual([
      ["less_than_equal", ["body", "weights", "A6"]],
      ["too_long", ["body", "signals"]],
    ]);
    expect(await (await as(keys.gov, "/v1/bench/rubric")).json()).toEqual(before);
    const list = await put(keys.gov, "/v1/bench/watchlist", { papers: Array(501).fill("2401.12345") });
    expect(list.status).toBe(422);
    const ids = await put(keys.gov, "/v1/bench/watchlist", { papers: ["2401.12345", "nope"] });
    expect(((await ids.json()) as { detail: unknown[] }).detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "papers", 1],
        msg: "Value error, not an arXiv id or arXiv URL",
        input: "nope",
        ctx: { error: {} },
      },
    ]);
    expect(await (await as(keys.gov, "/v1/bench/watchlist")).json()).toMatchObject({ papers: [WATCHED] });
  });

  it("a new rubric version keeps the history", async () => {
    const answer = await put(keys.gov, "/v1/bench/rubric", { weights: { A6: 2 } });
    expect(((await answer.json()) as { version: number }).version).toBe(2);
    const history = (await (await as(keys.gov, "/v1/bench/rubric")).json()) as {
      current: { version: number };
      versions: Array<{ version: number }>;
      next_cursor: string | null;
    };
    expect(history.current.version).toBe(2);
    expect(history.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(history.next_cursor).toBeNull();
  });

  it("weeks: malformed 422, nonexistent or not yet begun 404, an empty week a note that says so", async () => {
    expect((await as(keys.gov, "/v1/bench/notes/2026-48")).status).toBe(422);
    expect((await as(keys.gov, "/v1/bench/notes/2025-W53")).status).toBe(404);
    expect((await as(keys.gov, "/v1/bench/notes/2099-W01")).status).toBe(404);
    const empty = (await (await as(keys.gov, "/v1/bench/notes/2026-W30")).json()) as BenchNote;
    expect(empty.published_days).toEqual([]);
    const markdown = await (
      await as(keys.gov, "/v1/bench/notes/2026-W30", { headers: { accept: "text/markdown" } })
    ).text();
    expect(markdown).toContain("there is no data for this week");
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { createCitationLookup } from "../../../pipeline/citations/citation-lookup.ts";
import { S2_FIELDS } from "../../../pipeline/citations/semantic-scholar.ts";
import type { Citations } from "../../../pipeline/domain/citations.ts";
import { createHttpClient, type HttpClient } from "../../../pipeline/http.ts";
import { type FakeReply, type SeenRequest, wrappedBody, wrappedReply } from "../../helpers/fake-upstream.ts";
import { useFakeUpstream } from "../../helpers/fake-upstream-hooks.ts";

const S2_BATCH = "/graph/v1/paper/batch";
const OPENALEX = "/works";
const NOW = new Date("2026-11-21T06:00:00Z");
// The recorded OpenAlex list holds 2312.07559; the recorded S2 batch answers null first, then three papers.
const IDS = ["2312.07559", "2401.00001", "2401.00002", "2401.00003"];

const fake = useFakeUpstream();
let client: HttpClient;
afterEach(() => client?.close());

function lookup(options: { s2Key?: string; openAlex?: boolean } = {}) {
  client = createHttpClient({ userAgent: "test", retries: 2, backoffBaseMs: 1, sleep: async () => {} });
  return createCitationLookup({
    semanticScholar: {
      client,
      baseUrl: `${fake.url}/graph/v1`,
      ...(options.s2Key ? { apiKey: options.s2Key } : {}),
    },
    ...(options.openAlex === false
      ? {}
      : { openAlex: { client, baseUrl: fake.url, mailto: "ops@example.org" } }),
    now: () => NOW,
  });
}

const found = (citations: Citations | undefined) => {
  if (citations?.status !== "found") throw new Error(`expected found, got ${JSON.stringify(citations)}`);
  return citations;
};

describe("citation lookup against fake Semantic Scholar and OpenAlex", () => {
  it("reads the S2 batch with a null and asks OpenAlex only for that paper", async () => {
    fake.route("POST", S2_BATCH, wrappedReply("semantic-scholar/paper-batch-4-ids-one-null.json"));
    fake.route("GET", OPENALEX, wrappedReply("openalex/works-filter-arxiv-preprint.json"));
    const result = await lookup({ s2Key: "s2-secret" }).lookup(IDS);

    const [s2] = fake.seen(S2_BATCH);
    expect(JSON.parse(s2?.body ?? "")).toEqual({ ids: IDS.map((id) => `ARXIV:${id}`) });
    expect(s2?.query.get("fields")).toBe(S2_FIELDS);
    expect(s2?.headers["x-api-key"]).toBe("s2-secret");
    const [openAlex] = fake.seen(OPENALEX);
    expect(openAlex?.query.get("filter")).toBe("doi:10.48550/arxiv.2312.07559");
    expect(openAlex?.query.get("mailto")).toBe("ops@example.org");
    expect(fake.requests).toHaveLength(2);

    expect(found(result.citations.get("2312.07559"))).toMatchObject({
      source: "openalex",
      fetched_at: NOW.toISOString(),
      citation_count: 27,
      influential_citation_count: null,
      reference_count: 0,
      lists: "ids-only",
      top_citing: [],
    });
    expect(found(result.citations.get("2401.00001"))).toMatchObject({
      source: "semantic_scholar",
      citation_count: 10670,
      influential_citation_count: 578,
      reference_count: 30,
      lists: "ranked",
    });
    expect(found(result.citations.get("2401.00003")).citation_count).toBe(0);
    expect(result).toMatchObject({ foundBy: { semantic_scholar: 3, openalex: 1 }, missing: 0, problems: [] });
  });

  it("falls back to OpenAlex for every paper when Semantic Scholar fails, and says why for the rest", async () => {
    fake.route("POST", S2_BATCH, { status: 503, body: "upstream request timeout" });
    fake.route("GET", OPENALEX, wrappedReply("openalex/works-filter-arxiv-preprint.json"));
    const result = await lookup().lookup(IDS);
    expect(fake.seen(S2_BATCH)).toHaveLength(3);
    expect(fake.seen(OPENALEX)[0]?.query.get("filter")?.split("|")).toHaveLength(4);
    expect(found(result.citations.get("2312.07559")).source).toBe("openalex");
    const missing = result.citations.get("2401.00001");
    expect(missing).toMatchObject({ status: "missing", checked_at: NOW.toISOString() });
    expect(missing?.status === "missing" && missing.reason).toMatch(
      /^Semantic Scholar failed \(semantic_scholar: POST .* failed after 3 attempts: HTTP 503 .*\); not in OpenAlex$/,
    );
    expect(result.missing).toBe(3);
    expect(result.problems).toHaveLength(1);
  });

  it("rides out a 429 with a JSON body and no Retry-After", async () => {
    fake.route(
      "POST",
      S2_BATCH,
      {
        status: 429,
        headers: { "content-type": "application/json" },
        body: '{"message":"Too Many Requests"}',
      },
      wrappedReply("semantic-scholar/paper-batch-4-ids-one-null.json"),
    );
    fake.route("GET", OPENALEX, wrappedReply("openalex/works-filter-arxiv-preprint.json"));
    const result = await lookup().lookup(IDS);
    expect(result.foundBy.semantic_scholar).toBe(3);
    expect(client.counts().by_upstream.semantic_scholar).toEqual({ requests: 2, retries: 1, failures: 0 });
  });

  it("marks every paper missing, with both reasons, when both indexes fail", async () => {
    fake.route("POST", S2_BATCH, { status: 500, body: "boom" });
    fake.route("GET", OPENALEX, { hang: true });
    client = createHttpClient({ userAgent: "test", retries: 0, timeoutMs: 100 });
    const result = await createCitationLookup({
      semanticScholar: { client, baseUrl: `${fake.url}/graph/v1` },
      openAlex: { client, baseUrl: fake.url },
      now: () => NOW,
    }).lookup(IDS);
    expect(result.missing).toBe(4);
    const reason = (result.citations.get("2312.07559") as { reason: string }).reason;
    expect(reason).toContain("Semantic Scholar failed");
    expect(reason).toContain("HTTP 500");
    expect(reason).toContain("OpenAlex failed");
    expect(reason).toContain("no complete answer within 100 ms");
  });

  it("treats a batch answer of the wrong length as a failed batch", async () => {
    const recorded = wrappedBody<unknown[]>("semantic-scholar/paper-batch-4-ids-one-null.json");
    fake.route("POST", S2_BATCH, { body: JSON.stringify(recorded.slice(1)) });
    const result = await lookup({ openAlex: false }).lookup(IDS);
    expect(result.missing).toBe(4);
    expect((result.citations.get("2401.00001") as { reason: string }).reason).toBe(
      "Semantic Scholar failed (Semantic Scholar answered 3 items for 4 ids); no fallback index configured",
    );
  });

  it("uses ceil(n/500) batch requests and finds links between the papers from both directions", async () => {
    const record = wrappedBody<unknown[]>("semantic-scholar/paper-batch-4-ids-one-null.json")[1] as object;
    // Each answer: the recorded paper, where 2501.00000 cites 2501.00001 and 2501.00002 is cited by 2501.00003.
    fake.route("POST", S2_BATCH, (request: SeenRequest): FakeReply => {
      const ids = (JSON.parse(request.body) as { ids: string[] }).ids;
      const answer = ids.map((id) => ({
        ...record,
        paperId: `s2-${id}`,
        references:
          id === "ARXIV:2501.00000"
            ? [
                {
                  paperId: "x",
                  externalIds: { ArXiv: "2501.00001v2" },
                  title: "B",
                  year: 2025,
                  citationCount: 3,
                },
              ]
            : [],
        citations:
          id === "ARXIV:2501.00002"
            ? [{ paperId: "s2-ARXIV:2501.00003", externalIds: {}, title: "D", year: 2025, citationCount: 0 }]
            : [],
      }));
      return { body: JSON.stringify(answer) };
    });
    const ids = Array.from({ length: 1001 }, (_, i) => `2501.${String(i).padStart(5, "0")}`);
    const result = await lookup().lookup(ids);
    expect(fake.seen(S2_BATCH).map((request) => JSON.parse(request.body).ids.length)).toEqual([500, 500, 1]);
    expect(fake.seen(OPENALEX)).toHaveLength(0);
    expect(found(result.citations.get("2501.00000"))).toMatchObject({
      cites_picks: ["2501.00001"],
      cited_by_picks: [],
    });
    expect(found(result.citations.get("2501.00001")).cited_by_picks).toEqual(["2501.00000"]);
    expect(found(result.citations.get("2501.00003")).cites_picks).toEqual(["2501.00002"]);
    expect(found(result.citations.get("2501.00000")).top_references[0]).toEqual({
      title: "B",
      arxiv_id: "2501.00001",
      url: "https://www.semanticscholar.org/paper/x",
      year: 2025,
      citation_count: 3,
    });
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient, type HttpClient } from "../../../pipeline/http.ts";
import { fetchArxivDetails } from "../../../pipeline/sources/arxiv-api.ts";
import { readApiFeed } from "../../../pipeline/sources/arxiv-entries.ts";
import { createArxivSource } from "../../../pipeline/sources/arxiv-source.ts";
import { atomFeed } from "../../../pipeline/sources/arxiv-xml.ts";
import { SourceError } from "../../../pipeline/sources/source.ts";
import { type FakeReply, fixtureText, xmlReply } from "../../helpers/fake-upstream.ts";
import { useFakeUpstream } from "../../helpers/fake-upstream-hooks.ts";

const LISTING_PATH = "/atom/cs.AI+cs.LG";
const API_PATH = "/api/query";
const LISTING = fixtureText("arxiv/atom-listing-cs.AI-7-entries.xml");
const atom = (body: string): FakeReply => ({ headers: { "content-type": "application/atom+xml" }, body });
/** The real listing with its entries taken out: what arXiv serves on a weekend, header and all. */
const EMPTY_LISTING = LISTING.replace(/<entry>[\s\S]*?<\/entry>\s*/g, "");

const fake = useFakeUpstream();
let client: HttpClient;
afterEach(() => client?.close());

function source(options: { intervalMs?: number; details?: "all" | "missing" } = {}) {
  client = createHttpClient({
    userAgent: "Research-Picks/test (mailto:ops@example.org)",
    retries: 2,
    backoffBaseMs: 1,
    upstreams: { arxiv: { concurrency: 1, minIntervalMs: options.intervalMs ?? 0 } },
  });
  return createArxivSource({
    client,
    categories: ["cs.AI", "cs.LG"],
    listingUrl: `${fake.url}/atom`,
    apiUrl: `${fake.url}${API_PATH}`,
    ...(options.details ? { details: options.details } : {}),
  });
}

describe("the arXiv source against a fake arXiv", () => {
  it("turns the 7-entry listing into 7 candidates, asking the API for details politely", async () => {
    fake.route("GET", LISTING_PATH, atom(LISTING));
    fake.route("GET", API_PATH, xmlReply("arxiv/api-id-list-empty-feed.xml"));
    const arxiv = source({ intervalMs: 60 });
    expect(await arxiv.latestDay()).toBe("2025-08-20");
    const batch = await arxiv.load("2025-08-20");
    expect(batch.source).toBe("arxiv:cs.AI+cs.LG");
    expect(batch.candidates.map((candidate) => candidate.id)).toEqual([
      "2508.13426",
      "2508.13428",
      "2508.13429",
      "2508.13434",
      "2508.13435",
      "2508.14001",
      "2508.14002",
    ]);
    expect(batch.candidates[0]?.authors).toEqual(["Chunhua Liu", "Kabir Manandhar Shrestha", "Sukai Huang"]);
    expect(batch.notes?.[0]).toContain("7 entries (5 cross, 2 new)");
    expect(batch.notes?.[1]).toContain("7 unknown to the API, kept as listed");
    // One listing request (reused by latestDay and load), one API request; spaced, one at a time.
    expect(fake.requests.map((request) => request.path)).toEqual([LISTING_PATH, API_PATH]);
    const [listing, query] = fake.requests;
    expect(query?.query.get("id_list")?.split(",")).toHaveLength(7);
    expect((query?.at ?? 0) - (listing?.at ?? 0)).toBeGreaterThanOrEqual(55);
    expect(listing?.headers["user-agent"]).toBe("Research-Picks/test (mailto:ops@example.org)");
  });

  it("completes a listed paper from the API: its comment, full author list and title", async () => {
    fake.route("GET", LISTING_PATH, atom(LISTING.replaceAll("2508.13426", "1707.08567")));
    fake.route("GET", API_PATH, xmlReply("arxiv/api-id-list-one-invalid.xml"));
    const batch = await source().load("2025-08-20");
    const completed = batch.candidates.find((candidate) => candidate.id === "1707.08567");
    expect(completed?.title).toBe(
      "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications",
    );
    expect(completed?.comment).toBe(
      "44 pages, editors for the proceedings: Yanling Chen and A. J. Han Vinck",
    );
    expect(completed?.authors).toHaveLength(34);
    expect(batch.notes?.[1]).toContain("6 unknown to the API");
  });

  it("asks the API only for entries lacking details when told so", async () => {
    fake.route("GET", LISTING_PATH, atom(LISTING));
    const batch = await source({ details: "missing" }).load("2025-08-20");
    expect(batch.candidates).toHaveLength(7);
    expect(fake.seen(API_PATH)).toHaveLength(0);
    expect(batch.notes?.[1]).toBe("details: 0 query API requests for 0 ids");
  });

  it("folds a paper listed twice in two versions into one candidate", async () => {
    const second =
      /<entry>[\s\S]*?<\/entry>/.exec(LISTING)?.[0].replaceAll("2508.13426v1", "2508.13426v2") ?? "";
    fake.route("GET", LISTING_PATH, atom(LISTING.replace("</feed>", `${second}\n</feed>`)));
    fake.route("GET", API_PATH, xmlReply("arxiv/api-id-list-empty-feed.xml"));
    const batch = await source().load("2025-08-20");
    expect(batch.candidates).toHaveLength(7);
    expect(batch.duplicates).toBe(1);
    expect(fake.seen(API_PATH)[0]?.query.get("id_list")?.split(",")).toHaveLength(7);
  });

  it("leaves replacements of older papers out", async () => {
    fake.route(
      "GET",
      LISTING_PATH,
      atom(LISTING.replace("<arxiv:announce_type>new", "<arxiv:announce_type>replace")),
    );
    fake.route("GET", API_PATH, xmlReply("arxiv/api-id-list-empty-feed.xml"));
    const batch = await source().load("2025-08-20");
    expect(batch.candidates.map((candidate) => candidate.id)).not.toContain("2508.14001");
    expect(batch.notes?.[0]).toContain("1 replacements of older papers left out");
  });

  it("gives a valid empty day for an empty listing (weekends, holidays), without asking the API", async () => {
    fake.route("GET", LISTING_PATH, atom(EMPTY_LISTING));
    const arxiv = source();
    const day = await arxiv.latestDay();
    const batch = await arxiv.load(day);
    expect(day).toBe("2025-08-20");
    expect(batch.candidates).toEqual([]);
    expect(fake.seen(API_PATH)).toHaveLength(0);
  });

  it("refuses a day other than the one the live listing holds", async () => {
    fake.route("GET", LISTING_PATH, atom(EMPTY_LISTING));
    await expect(source().load("2025-08-18")).rejects.toThrow(
      "the arXiv listing holds the announcements of 2025-08-20, not 2025-08-18",
    );
  });

  it("retries a listing cut short by a dropped connection", async () => {
    fake.route("GET", LISTING_PATH, { ...atom(LISTING), truncateAt: 2000 }, atom(LISTING));
    fake.route("GET", API_PATH, xmlReply("arxiv/api-id-list-empty-feed.xml"));
    const batch = await source().load("2025-08-20");
    expect(batch.candidates).toHaveLength(7);
    expect(fake.seen(LISTING_PATH)).toHaveLength(2);
  });

  it.each([
    ["HTML that is not a feed", { status: 200, body: "<html><body>Maintenance</body></html>" }, "got <html>"],
    ["a listing truncated mid-XML", atom(LISTING.slice(0, 3000)), "not well-formed XML"],
    [
      "a 503 that does not end",
      { status: 503, body: "Service Unavailable" },
      "failed after 3 attempts: HTTP 503",
    ],
  ])("stops with a SourceError on %s", async (_name, reply, message) => {
    fake.route("GET", LISTING_PATH, reply);
    const failure = await source()
      .load("2025-08-20")
      .catch((error) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect(failure.message).toContain(message);
  });

  it("stops when the API's answer holds fewer entries than its totalResults says", async () => {
    const body = fixtureText("arxiv/api-id-list-one-invalid.xml").replace(/<entry>[\s\S]*<\/entry>/, "");
    fake.route("GET", LISTING_PATH, atom(LISTING));
    fake.route("GET", API_PATH, atom(body));
    await expect(source().load("2025-08-20")).rejects.toThrow("says 1 results but holds 0 entries");
  });
});

describe("fetchArxivDetails", () => {
  function details(batchSize?: number) {
    client = createHttpClient({ userAgent: "test", retries: 0 });
    return { client, apiUrl: `${fake.url}${API_PATH}`, ...(batchSize ? { batchSize } : {}) };
  }

  it("reports the invalid id as unknown and keeps the one the API knows", async () => {
    fake.route("GET", API_PATH, xmlReply("arxiv/api-id-list-one-invalid.xml"));
    const answer = await fetchArxivDetails(details(), ["0808.05394", "1707.08567"]);
    expect([...answer.found.keys()]).toEqual(["1707.08567"]);
    expect(answer.unknown).toEqual(["0808.05394"]);
    expect(fake.seen(API_PATH)[0]?.query.get("id_list")).toBe("0808.05394,1707.08567");
  });

  it.each([
    [
      "the older format",
      "api-query-legacy-format-10-entries.xml",
      "cond-mat/0412498",
      "Thermal melting of density waves on the square lattice",
    ],
    [
      "the late-2025 format",
      "api-query-100-entries.xml",
      "2405.13786",
      "Towards Explainable Test Case Prioritisation with Learning-to-Rank Models",
    ],
  ])("reads %s through the client", async (_name, file, id, title) => {
    const ids = readApiFeed(atomFeed(fixtureText(`arxiv/${file}`), file)).entries.map((entry) => entry.id);
    fake.route("GET", API_PATH, xmlReply(`arxiv/${file}`));
    const answer = await fetchArxivDetails(details(), ids);
    expect(answer.found.get(id)?.title).toBe(title);
    expect(answer.found.size).toBe(ids.length);
    expect(answer.unknown).toEqual([]);
  });

  it("refuses an answer with more entries than ids asked (not the answer to this query)", async () => {
    fake.route("GET", API_PATH, xmlReply("arxiv/api-query-legacy-format-10-entries.xml"));
    await expect(fetchArxivDetails(details(), ["1201.4869", "cond-mat/0412498"])).rejects.toThrow(
      "says 31 results but holds 10 entries",
    );
  });

  it("asks in batches", async () => {
    fake.route("GET", API_PATH, xmlReply("arxiv/api-id-list-empty-feed.xml"));
    const ids = Array.from({ length: 250 }, (_, i) => `2601.${String(i).padStart(5, "0")}`);
    const answer = await fetchArxivDetails(details(100), ids);
    expect(answer.requests).toBe(3);
    expect(fake.seen(API_PATH).map((request) => request.query.get("id_list")?.split(",").length)).toEqual([
      100, 100, 50,
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { listingDay, readApiFeed, readListing } from "../../../pipeline/sources/arxiv-entries.ts";
import { atomFeed, FeedError } from "../../../pipeline/sources/arxiv-xml.ts";
import { SourceError } from "../../../pipeline/sources/source.ts";
import { fixtureText } from "../../helpers/fake-upstream.ts";

const LISTING = fixtureText("arxiv/atom-listing-cs.AI-7-entries.xml");
const api = (path: string) => readApiFeed(atomFeed(fixtureText(`arxiv/${path}`), path));

describe("the announcement listing (rss.arxiv.org/atom)", () => {
  const listing = readListing(atomFeed(LISTING, "listing"));

  it("reads the 7 entries: new and cross announcements, versionless ids, the day", () => {
    expect(listing.entries.map((entry) => [entry.id, entry.announceType])).toEqual([
      ["2508.13426", "cross"],
      ["2508.13428", "cross"],
      ["2508.13429", "cross"],
      ["2508.13434", "cross"],
      ["2508.13435", "cross"],
      ["2508.14001", "new"],
      ["2508.14002", "new"],
    ]);
    expect(listing.bad).toEqual([]);
    expect(listingDay(listing)).toBe("2025-08-20");
  });

  it("splits dc:creator into authors and drops the `arXiv:ID Announce Type: Abstract:` prefix", () => {
    const first = listing.entries[0];
    expect(first?.rawId).toBe("2508.13426v1");
    expect(first?.authors).toEqual(["Chunhua Liu", "Kabir Manandhar Shrestha", "Sukai Huang"]);
    expect(first?.summary.startsWith("As large language models (LLMs) increasingly mediate")).toBe(true);
    expect(first?.title).toBe(
      "ALIGN: Word Association Learning for Cross-Cultural Generalization in Large Language Models",
    );
    expect(first?.categories).toEqual(["cs.CL", "cs.AI"]);
    expect(listing.entries[5]?.summary).toBe(
      "We propose a neural architecture search method for efficient transformers.",
    );
  });
});

describe("the query API (export.arxiv.org/api/query), both formats", () => {
  it("reads the late-2025 format: 100 entries, totalResults, comment, authors, categories", () => {
    const feed = api("api-query-100-entries.xml");
    expect(feed.totalResults).toBe(214881);
    expect(feed.entries).toHaveLength(100);
    expect(feed.errors).toEqual([]);
    expect(feed.entries[0]).toMatchObject({
      id: "2202.12139",
      rawId: "2202.12139v1",
      title: "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques",
      authors: ["Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker"],
      categories: ["cs.SE", "cs.LG"],
      comment: "Artificial Intelligence in Software Testing 2022 workshop @ ICST 2022",
    });
  });

  it("reads the older format: prefixes declared per element, other order, wrapped summaries, old-style ids", () => {
    const feed = api("api-query-legacy-format-10-entries.xml");
    expect(feed.totalResults).toBe(31);
    expect(feed.entries).toHaveLength(10);
    expect(feed.entries.map((entry) => entry.id)).toContain("cond-mat/0412498");
    const first = feed.entries[0];
    expect(
      first?.summary.startsWith(
        "As helium-4 is cooled below 2.17 K it undergoes a phase transition to a fundamentally",
      ),
    ).toBe(true);
    expect(first?.summary).not.toMatch(/\n|\s{2}/);
    expect(first).toMatchObject({
      id: "1201.4869",
      comment: "26 pages, 10 figures",
      authors: ["Adrian Del Maestro"],
    });
    expect(first?.categories).toEqual(["cond-mat.mes-hall", "cond-mat.other"]);
  });

  it("reads an unknown id's answer as an empty feed with totalResults 0", () => {
    expect(api("api-id-list-empty-feed.xml")).toEqual({ totalResults: 0, entries: [], errors: [] });
  });

  it("reads the one-invalid-id answer: one entry for two ids asked", () => {
    const feed = api("api-id-list-one-invalid.xml");
    expect(feed.totalResults).toBe(1);
    expect(feed.entries.map((entry) => entry.id)).toEqual(["1707.08567"]);
    expect(feed.entries[0]?.authors).toHaveLength(34);
  });

  it("turns an error entry (the API's HTTP-200 refusal) into an error, not a paper", () => {
    const body = fixtureText("arxiv/api-id-list-one-invalid.xml").replace(
      "<id>http://arxiv.org/abs/1707.08567v1</id>",
      "<id>http://arxiv.org/api/errors#incorrect_id_format_for_0808.05394</id>",
    );
    const feed = readApiFeed(atomFeed(body, "api"));
    expect(feed.entries).toEqual([]);
    expect(feed.errors).toHaveLength(1);
  });
});

describe("bodies that are not a feed", () => {
  it.each([
    ["an HTML error page", "<!DOCTYPE html><html><body><h1>503</h1></body></html>", "with a DOCTYPE"],
    [
      "HTML without a DOCTYPE",
      "<html><body>Service Unavailable</body></html>",
      "expected an Atom <feed>, got <html>",
    ],
    ["RSS 2.0", '<?xml version="1.0"?><rss version="2.0"><channel></channel></rss>', "got <rss>"],
    ["a feed in no namespace", "<feed><entry/></feed>", "expected an Atom <feed>, got <feed>"],
    ["JSON", '{"error":"rate limited"}', "not well-formed XML"],
    ["a truncated listing", LISTING.slice(0, 3000), "not well-formed XML"],
    ["an empty body", "", "not well-formed XML"],
  ])("%s is a FeedError (a SourceError: nothing is published)", (_name, body, message) => {
    let thrown: unknown;
    try {
      atomFeed(body, "arXiv listing");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FeedError);
    expect(thrown).toBeInstanceOf(SourceError);
    expect((thrown as Error).message).toContain(message);
  });
});

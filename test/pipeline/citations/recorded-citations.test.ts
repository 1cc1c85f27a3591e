import { describe, expect, it } from "vitest";
import {
  type CitationRecording,
  createReplayClient,
  readCitationRecording,
  recordedCitationLookup,
} from "../../../pipeline/citations/recorded-citations.ts";
import { S2_FIELDS } from "../../../pipeline/citations/semantic-scholar.ts";
import { HttpError } from "../../../pipeline/http-rules.ts";

const paper = (id: string, references: string[] = []) => ({
  paperId: `sample-${id}`,
  externalIds: { ArXiv: id },
  title: `Paper ${id}`,
  citationCount: 7,
  influentialCitationCount: 1,
  referenceCount: 20,
  references: references.map((ref) => ({
    paperId: null,
    externalIds: { ArXiv: ref },
    title: `Paper ${ref}`,
    year: 2024,
    citationCount: 3,
  })),
  citations: [],
});

const RECORDING: CitationRecording = {
  about: "test",
  written_at: "2026-11-21",
  note: "sample figures written for the test",
  answers: { "2401.00001": paper("2401.00001", ["2401.00002"]), "2401.00002": paper("2401.00002") },
};

describe("the replay of a citation recording", () => {
  it("answers the batch in the request's order, null for an id it does not hold", async () => {
    const client = createReplayClient(RECORDING);
    const answer = await client.send({
      url: `https://api.semanticscholar.org/graph/v1/paper/batch?fields=${S2_FIELDS}`,
      method: "POST",
      upstream: "semantic_scholar",
      body: JSON.stringify({ ids: ["ARXIV:2401.00002", "ARXIV:2401.99999", "ARXIV:2401.00001"] }),
    });
    const papers = JSON.parse(answer.text) as Array<{ paperId: string } | null>;
    expect(papers.map((entry) => entry?.paperId ?? null)).toEqual([
      "sample-2401.00002",
      null,
      "sample-2401.00001",
    ]);
    expect(client.counts().by_upstream.semantic_scholar).toEqual({ requests: 1, retries: 0, failures: 0 });
  });

  it("refuses what was not recorded as the index would, with a 404", async () => {
    const client = createReplayClient(RECORDING);
    await expect(
      client.send({ url: "https://api.semanticscholar.org/graph/v1/paper/search", method: "GET" }),
    ).rejects.toBeInstanceOf(HttpError);
  });

  it("publishes figures through the real lookup, dated on the day they were written and marked illustrative", async () => {
    const result = await recordedCitationLookup(RECORDING).lookup(["2401.00001", "2401.00002", "2401.55555"]);
    const first = result.citations.get("2401.00001");
    expect(first).toMatchObject({
      status: "found",
      source: "semantic_scholar",
      fetched_at: "2026-11-21T00:00:00.000Z",
      citation_count: 7,
      cites_picks: ["2401.00002"],
      illustrative: { written_at: "2026-11-21", note: "sample figures written for the test" },
    });
    expect(result.citations.get("2401.00002")).toMatchObject({ cited_by_picks: ["2401.00001"] });
    const missing = result.citations.get("2401.55555");
    expect(missing?.status).toBe("missing");
    expect(missing?.status === "missing" && missing.reason).toContain(
      "in the sample's figures written 2026-11-21",
    );
  });

  it("reads the sample's recording, whose every answer the Semantic Scholar client accepts", async () => {
    const recording = await readCitationRecording();
    const ids = Object.keys(recording.answers);
    expect(ids.length).toBeGreaterThanOrEqual(18);
    const result = await recordedCitationLookup(recording).lookup(ids);
    expect(result.missing).toBe(0);
    expect(result.problems).toEqual([]);
    const linked = [...result.citations.values()].filter(
      (entry) => entry.status === "found" && entry.cites_picks.length > 0,
    );
    expect(linked.length).toBeGreaterThan(3);
  });
});

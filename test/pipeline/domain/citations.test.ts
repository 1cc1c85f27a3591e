import { describe, expect, it } from "vitest";
import {
  type Citations,
  CitationsSchema,
  type IndexedPaper,
  type LinkedPaper,
  linkPapers,
  MAX_LISTED_PAPERS,
  refreshed,
  toCitations,
  topPapers,
} from "../../../pipeline/domain/citations.ts";

const linked = (title: string, count: number | null, keys: string[] = []) => ({
  title,
  arxiv_id: null,
  url: null,
  year: null,
  citation_count: count,
  keys,
});

function paper(arxivId: string, extra: Partial<IndexedPaper> = {}): IndexedPaper {
  return {
    arxivId,
    source: "semantic_scholar",
    citationCount: 1,
    influentialCitationCount: 0,
    referenceCount: 0,
    lists: "ranked",
    references: [],
    citing: [],
    keys: [`arxiv:${arxivId}`],
    ...extra,
  };
}

describe("links between picks", () => {
  it.each([
    [
      "A's reference is B",
      [paper("A", { references: [linked("b", 1, ["arxiv:B"])] }), paper("B")],
      { A: ["B"] },
    ],
    [
      "B's citing paper is A",
      [paper("A", { keys: ["arxiv:A", "s2:a"] }), paper("B", { citing: [linked("a", 1, ["s2:a"])] })],
      { A: ["B"] },
    ],
    [
      "both directions at once count once",
      [
        paper("A", { references: [linked("b", 1, ["arxiv:B"])] }),
        paper("B", { citing: [linked("a", 1, ["arxiv:A"])] }),
      ],
      { A: ["B"] },
    ],
    ["a paper citing itself is no link", [paper("A", { references: [linked("a", 1, ["arxiv:A"])] })], {}],
    [
      "OpenAlex ids link OpenAlex papers",
      [
        paper("A", { references: [linked("", null, ["openalex:W2"])] }),
        paper("B", { keys: ["arxiv:B", "openalex:W2"] }),
      ],
      { A: ["B"] },
    ],
    ["papers outside the set are no link", [paper("A", { references: [linked("z", 1, ["arxiv:Z"])] })], {}],
  ])("%s", (_name, papers, expected: Record<string, string[]>) => {
    const links = linkPapers(papers);
    for (const item of papers) {
      const cites = expected[item.arxivId] ?? [];
      expect(links.get(item.arxivId)?.cites).toEqual(cites);
      const citedBy = Object.entries(expected)
        .filter(([, targets]) => targets.includes(item.arxivId))
        .map(([from]) => from);
      expect(links.get(item.arxivId)?.citedBy).toEqual(citedBy);
    }
  });
});

describe("published lists", () => {
  const many: LinkedPaper[] = Array.from({ length: 25 }, (_, i) => linked(`p${i}`, i % 7 === 0 ? null : i));

  it("ranks by citations (unknown last) and keeps at most ten", () => {
    const top = topPapers(many, true);
    expect(top).toHaveLength(MAX_LISTED_PAPERS);
    expect(top.map((item) => item.citation_count)).toEqual([24, 23, 22, 20, 19, 18, 17, 16, 15, 13]);
    expect(top[0]).not.toHaveProperty("keys");
  });

  it("keeps the index's order when it gives ids only", () => {
    expect(topPapers(many, false).map((item) => item.title)).toEqual(
      many.slice(0, 10).map((item) => item.title),
    );
  });

  it("builds data that the published schema accepts", () => {
    const citations = toCitations(
      paper("A", { references: many.map((item) => ({ ...item, keys: [] })) }),
      "2026-11-21T06:00:00.000Z",
    );
    expect(CitationsSchema.parse(citations)).toEqual(citations);
  });
});

describe("a refresh", () => {
  const old: Citations = toCitations(paper("A"), "2026-11-01T06:00:00.000Z");
  const missing: Citations = {
    status: "missing",
    checked_at: "2026-11-21T06:00:00.000Z",
    reason: "OpenAlex failed",
  };
  const fresh: Citations = toCitations(paper("A", { citationCount: 9 }), "2026-11-21T06:00:00.000Z");

  it.each([
    ["missing keeps the figures it had", old, missing, old],
    ["found replaces them", old, fresh, fresh],
    ["missing replaces missing", missing, missing, missing],
    ["missing on a pick that never had figures", null, missing, missing],
    ["found on a pick written before citations existed", undefined, fresh, fresh],
  ])("%s", (_name, previous, next, expected) => {
    expect(refreshed(previous, next)).toBe(expected);
  });
});

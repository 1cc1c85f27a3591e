import { z } from "zod";

// A pick's place in the citation graph, as one citation index saw it at one moment. Indexes disagree
// (27 vs 111 citations for the same paper), so every figure names its source and fetch time.

export const CitationSourceSchema = z.enum(["semantic_scholar", "openalex"]);
export type CitationSource = z.infer<typeof CitationSourceSchema>;

/** At most this many references and citing papers are published per pick. */
export const MAX_LISTED_PAPERS = 10;

/** A paper a pick cites or is cited by. Fields the index did not give are null. */
export const LinkedPaperSchema = z.object({
  title: z.string().nullable(),
  arxiv_id: z.string().nullable().describe("versionless arXiv id when the index knows one"),
  url: z.string().nullable().describe("the paper's page at the citation index"),
  year: z.int().nullable(),
  citation_count: z.int().min(0).nullable(),
});
export type LinkedPaper = z.infer<typeof LinkedPaperSchema>;

/** Figures written for the demonstration (the seeded sample days), replayed, never looked up at an index. */
export const CitationsIllustrativeSchema = z
  .object({
    written_at: z.string().describe("YYYY-MM-DD, when the figures were written"),
    note: z.string().min(1),
  })
  .describe("only for illustrative figures written for the sample days, replayed, not looked up");
export type CitationsIllustrative = z.infer<typeof CitationsIllustrativeSchema>;

export const CitationsFoundSchema = z.object({
  status: z.literal("found"),
  source: CitationSourceSchema,
  fetched_at: z.string(),
  citation_count: z.int().min(0),
  influential_citation_count: z
    .int()
    .min(0)
    .nullable()
    .describe("Semantic Scholar's highly influential citations; null when the source is OpenAlex"),
  reference_count: z.int().min(0),
  lists: z
    .enum(["ranked", "ids-only"])
    .describe(
      "ranked: titled papers, most cited first (Semantic Scholar); ids-only: OpenAlex reference ids in " +
        "its own order, citing papers not fetched",
    ),
  top_references: z.array(LinkedPaperSchema).max(MAX_LISTED_PAPERS),
  top_citing: z.array(LinkedPaperSchema).max(MAX_LISTED_PAPERS),
  cites_picks: z.array(z.string()).describe("arXiv ids of other recent picks this paper cites"),
  cited_by_picks: z.array(z.string()).describe("arXiv ids of other recent picks that cite this paper"),
  illustrative: CitationsIllustrativeSchema.optional(),
});
export type CitationsFound = z.infer<typeof CitationsFoundSchema>;

export const CitationsMissingSchema = z.object({
  status: z.literal("missing"),
  checked_at: z.string(),
  reason: z.string().describe("why no figures: not indexed yet, or which upstream failed and how"),
});
export type CitationsMissing = z.infer<typeof CitationsMissingSchema>;

/** A pick's citation data: found (with its source) or missing (with the reason). */
export const CitationsSchema = z.discriminatedUnion("status", [CitationsFoundSchema, CitationsMissingSchema]);
export type Citations = z.infer<typeof CitationsSchema>;

/**
 * One paper as an index answered, before links between picks are known. `keys` are the paper's own
 * identifiers (`arxiv:2401.12345`, `openalex:W123`, `s2:abc`); `references` and `citing` hold the keys of
 * every linked paper the index gave, so links can be found beyond the published top lists.
 */
export interface IndexedPaper {
  arxivId: string;
  source: CitationSource;
  citationCount: number;
  influentialCitationCount: number | null;
  referenceCount: number;
  lists: CitationsFound["lists"];
  references: ReadonlyArray<LinkedPaper & { keys: readonly string[] }>;
  citing: ReadonlyArray<LinkedPaper & { keys: readonly string[] }>;
  keys: readonly string[];
}

// Code-unit order for ties, not localeCompare: the lists must not depend on the machine's locale.
const byCitationsThenTitle = (a: LinkedPaper, b: LinkedPaper): number => {
  const [x, y] = [a.title ?? "", b.title ?? ""];
  return (b.citation_count ?? -1) - (a.citation_count ?? -1) || (x < y ? -1 : x > y ? 1 : 0);
};

/** The papers worth listing: most cited first when ranked, otherwise the index's order; at most `max`. */
export function topPapers(
  papers: ReadonlyArray<LinkedPaper>,
  ranked: boolean,
  max = MAX_LISTED_PAPERS,
): LinkedPaper[] {
  const ordered = ranked ? [...papers].sort(byCitationsThenTitle) : [...papers];
  return ordered.slice(0, max).map(({ title, arxiv_id, url, year, citation_count }) => ({
    title,
    arxiv_id,
    url,
    year,
    citation_count,
  }));
}

/**
 * Which papers of the set cite which: A cites B when A's references hold one of B's keys, or B's citing
 * papers hold one of A's. Returns, per arXiv id, the sorted ids it cites and is cited by.
 */
export function linkPapers(
  papers: ReadonlyArray<IndexedPaper>,
): Map<string, { cites: string[]; citedBy: string[] }> {
  const owner = new Map<string, string>();
  for (const paper of papers) for (const key of paper.keys) owner.set(key, paper.arxivId);
  const cites = new Map<string, Set<string>>(papers.map((paper) => [paper.arxivId, new Set<string>()]));
  const add = (from: string, to: string) => {
    if (from !== to) cites.get(from)?.add(to);
  };
  for (const paper of papers) {
    for (const reference of paper.references) {
      for (const key of reference.keys) {
        const cited = owner.get(key);
        if (cited) add(paper.arxivId, cited);
      }
    }
    for (const citing of paper.citing) {
      for (const key of citing.keys) {
        const citer = owner.get(key);
        if (citer) add(citer, paper.arxivId);
      }
    }
  }
  const links = new Map<string, { cites: string[]; citedBy: string[] }>();
  for (const paper of papers) links.set(paper.arxivId, { cites: [], citedBy: [] });
  for (const [from, targets] of cites) {
    for (const to of targets) {
      links.get(from)?.cites.push(to);
      links.get(to)?.citedBy.push(from);
    }
  }
  for (const link of links.values()) {
    link.cites.sort();
    link.citedBy.sort();
  }
  return links;
}

/** The published citation data of an indexed paper, with its links to the other picks. */
export function toCitations(
  paper: IndexedPaper,
  fetchedAt: string,
  links: { cites: string[]; citedBy: string[] } = { cites: [], citedBy: [] },
  illustrative?: CitationsIllustrative,
): CitationsFound {
  const ranked = paper.lists === "ranked";
  return {
    status: "found",
    source: paper.source,
    fetched_at: fetchedAt,
    citation_count: paper.citationCount,
    influential_citation_count: paper.influentialCitationCount,
    reference_count: paper.referenceCount,
    lists: paper.lists,
    top_references: topPapers(paper.references, ranked),
    top_citing: topPapers(paper.citing, ranked),
    cites_picks: links.cites,
    cited_by_picks: links.citedBy,
    ...(illustrative ? { illustrative } : {}),
  };
}

/**
 * What a refreshed pick keeps: fresh figures when found; when the refresh came back missing, the figures
 * it already had (still true as of their `fetched_at`) rather than erasing them.
 */
export function refreshed(previous: Citations | null | undefined, fresh: Citations): Citations {
  if (fresh.status === "missing" && previous?.status === "found") return previous;
  return fresh;
}

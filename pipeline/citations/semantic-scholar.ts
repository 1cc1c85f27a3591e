import { z } from "zod";
import { normalizeArxivRef } from "../domain/arxiv-id.ts";
import type { IndexedPaper, LinkedPaper } from "../domain/citations.ts";
import type { HttpClient } from "../http.ts";
import { AnswerError, HttpError } from "../http-rules.ts";

export const DEFAULT_S2_API_URL = "https://api.semanticscholar.org/graph/v1";
/** Semantic Scholar's limit of ids per batch request. */
export const S2_BATCH_LIMIT = 500;

const LINKED_FIELDS = ["paperId", "externalIds", "title", "year", "citationCount"];
/** One batch call brings the counts and the linked papers (up to 1000 each, S2's own cap), no paging. */
export const S2_FIELDS = [
  "paperId",
  "externalIds",
  "title",
  "citationCount",
  "influentialCitationCount",
  "referenceCount",
  ...LINKED_FIELDS.map((field) => `references.${field}`),
  ...LINKED_FIELDS.map((field) => `citations.${field}`),
].join(",");

export interface SemanticScholarOptions {
  client: HttpClient;
  /** The Graph API root, `https://api.semanticscholar.org/graph/v1` unless pointed elsewhere. */
  baseUrl?: string;
  /** Sent as `x-api-key` when set. */
  apiKey?: string;
}

const Count = z.int().min(0).nullish();
const ExternalIds = z.record(z.string(), z.unknown()).nullish();
const LinkedSchema = z.object({
  paperId: z.string().nullish(),
  externalIds: ExternalIds,
  title: z.string().nullish(),
  year: z.int().nullish(),
  citationCount: Count,
});
const PaperSchema = z.object({
  paperId: z.string(),
  externalIds: ExternalIds,
  citationCount: Count,
  influentialCitationCount: Count,
  referenceCount: Count,
  references: z.array(LinkedSchema.nullable()).nullish(),
  citations: z.array(LinkedSchema.nullable()).nullish(),
});
const BatchSchema = z.array(PaperSchema.nullable());
type Linked = z.infer<typeof LinkedSchema>;

function keysOf(
  paperId: string | null | undefined,
  externalIds: Record<string, unknown> | null | undefined,
): string[] {
  const keys: string[] = [];
  if (paperId) keys.push(`s2:${paperId}`);
  const arxiv = typeof externalIds?.ArXiv === "string" ? normalizeArxivRef(externalIds.ArXiv) : undefined;
  if (arxiv) keys.push(`arxiv:${arxiv}`);
  if (typeof externalIds?.DOI === "string") keys.push(`doi:${externalIds.DOI.toLowerCase()}`);
  return keys;
}

function linked(paper: Linked): LinkedPaper & { keys: string[] } {
  const arxiv =
    typeof paper.externalIds?.ArXiv === "string" ? normalizeArxivRef(paper.externalIds.ArXiv) : undefined;
  return {
    title: paper.title ?? null,
    arxiv_id: arxiv ?? null,
    url: paper.paperId ? `https://www.semanticscholar.org/paper/${paper.paperId}` : null,
    year: paper.year ?? null,
    citation_count: paper.citationCount ?? null,
    keys: keysOf(paper.paperId, paper.externalIds),
  };
}

export interface S2BatchAnswer {
  /** Per requested id: the paper, or null when Semantic Scholar does not know it. */
  papers: Map<string, IndexedPaper | null>;
  /** Per requested id whose batch failed: what went wrong. */
  failed: Map<string, string>;
  requests: number;
}

/** Reads one batch answer: the request's length and order, `null` for unknown ids. Throws when it is not that. */
export function readS2Batch(body: string, arxivIds: readonly string[]): Array<IndexedPaper | null> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new AnswerError("Semantic Scholar answered with a body that is not JSON");
  }
  const parsed = BatchSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AnswerError(
      `Semantic Scholar's answer is not a paper batch (${issue?.path.join(".")}: ${issue?.message})`,
    );
  }
  if (parsed.data.length !== arxivIds.length) {
    throw new AnswerError(`Semantic Scholar answered ${parsed.data.length} items for ${arxivIds.length} ids`);
  }
  return parsed.data.map((paper, index) => {
    if (paper === null) return null;
    const arxivId = arxivIds[index] as string;
    return {
      arxivId,
      source: "semantic_scholar",
      citationCount: paper.citationCount ?? 0,
      influentialCitationCount: paper.influentialCitationCount ?? null,
      referenceCount: paper.referenceCount ?? paper.references?.length ?? 0,
      lists: "ranked",
      references: (paper.references ?? []).filter((item) => item !== null).map(linked),
      citing: (paper.citations ?? []).filter((item) => item !== null).map(linked),
      keys: [...new Set([`arxiv:${arxivId}`, ...keysOf(paper.paperId, paper.externalIds)])],
    } satisfies IndexedPaper;
  });
}

/** Looks papers up by arXiv id, up to 500 per request; a failed batch fails only its own ids. */
export async function lookupSemanticScholar(
  options: SemanticScholarOptions,
  arxivIds: readonly string[],
): Promise<S2BatchAnswer> {
  const url = new URL(`${(options.baseUrl ?? DEFAULT_S2_API_URL).replace(/\/+$/, "")}/paper/batch`);
  url.searchParams.set("fields", S2_FIELDS);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.apiKey) headers["x-api-key"] = options.apiKey;
  const answer: S2BatchAnswer = { papers: new Map(), failed: new Map(), requests: 0 };
  for (let start = 0; start < arxivIds.length; start += S2_BATCH_LIMIT) {
    const batch = arxivIds.slice(start, start + S2_BATCH_LIMIT);
    try {
      answer.requests += 1;
      const response = await options.client.send({
        url: url.toString(),
        method: "POST",
        upstream: "semantic_scholar",
        headers,
        body: JSON.stringify({ ids: batch.map((id) => `ARXIV:${id}`) }),
      });
      for (const [index, paper] of readS2Batch(response.text, batch).entries()) {
        answer.papers.set(batch[index] as string, paper);
      }
    } catch (error) {
      if (!(error instanceof HttpError || error instanceof AnswerError)) throw error;
      for (const id of batch) answer.failed.set(id, error.message);
    }
  }
  return answer;
}

import { z } from "zod";
import { normalizeArxivRef } from "../domain/arxiv-id.ts";
import type { IndexedPaper } from "../domain/citations.ts";
import type { HttpClient } from "../http.ts";
import { AnswerError, HttpError } from "../http-rules.ts";

export const DEFAULT_OPENALEX_URL = "https://api.openalex.org";
/** DOIs OR-ed in one `filter` (OpenAlex takes up to 100; 50 keeps the URL short). */
export const OPENALEX_BATCH = 50;
const ARXIV_DOI = "10.48550/arxiv.";

export interface OpenAlexOptions {
  client: HttpClient;
  /** The API root, `https://api.openalex.org` unless pointed elsewhere. */
  baseUrl?: string;
  apiKey?: string;
  /** Sent as `mailto`, which OpenAlex asks of polite callers. */
  mailto?: string;
}

const WorkSchema = z.object({
  id: z.string(),
  doi: z.string().nullish(),
  cited_by_count: z.int().min(0).nullish(),
  referenced_works_count: z.int().min(0).nullish(),
  referenced_works: z.array(z.string()).nullish(),
});
const ListSchema = z.object({ results: z.array(WorkSchema) });

const shortId = (openAlexUrl: string): string => openAlexUrl.replace(/^https?:\/\/openalex\.org\//, "");

/** The arXiv id behind an OpenAlex DOI such as `https://doi.org/10.48550/arxiv.2312.07559`. */
export function arxivIdOfDoi(doi: string | null | undefined): string | undefined {
  const bare = doi?.toLowerCase().replace(/^https?:\/\/(?:dx\.)?doi\.org\//, "");
  return bare?.startsWith(ARXIV_DOI) ? normalizeArxivRef(bare.slice(ARXIV_DOI.length)) : undefined;
}

/** Reads a `/works?filter=doi:...` list: the works it holds, keyed by arXiv id. */
export function readOpenAlexList(body: string): Map<string, IndexedPaper> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new AnswerError("OpenAlex answered with a body that is not JSON");
  }
  const parsed = ListSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AnswerError(
      `OpenAlex's answer is not a list of works (${issue?.path.join(".")}: ${issue?.message})`,
    );
  }
  const works = new Map<string, IndexedPaper>();
  for (const work of parsed.data.results) {
    const arxivId = arxivIdOfDoi(work.doi);
    if (!arxivId) continue;
    const references = work.referenced_works ?? [];
    works.set(arxivId, {
      arxivId,
      source: "openalex",
      citationCount: work.cited_by_count ?? 0,
      influentialCitationCount: null,
      referenceCount: work.referenced_works_count ?? references.length,
      lists: "ids-only",
      references: references.map((url) => ({
        title: null,
        arxiv_id: null,
        url,
        year: null,
        citation_count: null,
        keys: [`openalex:${shortId(url)}`],
      })),
      citing: [],
      keys: [`arxiv:${arxivId}`, `openalex:${shortId(work.id)}`, `doi:${ARXIV_DOI}${arxivId}`],
    });
  }
  return works;
}

export interface OpenAlexAnswer {
  found: Map<string, IndexedPaper>;
  failed: Map<string, string>;
  requests: number;
}

/** Looks arXiv papers up by their arXiv DOI, 50 per request; a failed request fails only its own ids. */
export async function lookupOpenAlex(
  options: OpenAlexOptions,
  arxivIds: readonly string[],
): Promise<OpenAlexAnswer> {
  const answer: OpenAlexAnswer = { found: new Map(), failed: new Map(), requests: 0 };
  for (let start = 0; start < arxivIds.length; start += OPENALEX_BATCH) {
    const batch = arxivIds.slice(start, start + OPENALEX_BATCH);
    const url = new URL(`${(options.baseUrl ?? DEFAULT_OPENALEX_URL).replace(/\/+$/, "")}/works`);
    url.searchParams.set("filter", `doi:${batch.map((id) => `${ARXIV_DOI}${id}`).join("|")}`);
    url.searchParams.set("per_page", String(OPENALEX_BATCH));
    url.searchParams.set("select", "id,doi,cited_by_count,referenced_works_count,referenced_works");
    if (options.apiKey) url.searchParams.set("api_key", options.apiKey);
    if (options.mailto) url.searchParams.set("mailto", options.mailto);
    try {
      answer.requests += 1;
      const response = await options.client.send({
        url: url.toString(),
        upstream: "openalex",
        headers: { accept: "application/json" },
      });
      for (const [id, work] of readOpenAlexList(response.text))
        if (batch.includes(id)) answer.found.set(id, work);
    } catch (error) {
      if (!(error instanceof HttpError || error instanceof AnswerError)) throw error;
      for (const id of batch) answer.failed.set(id, error.message);
    }
  }
  return answer;
}

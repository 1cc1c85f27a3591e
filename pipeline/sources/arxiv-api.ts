import type { HttpClient } from "../http.ts";
import { type ArxivEntry, readApiFeed } from "./arxiv-entries.ts";
import { atomFeed, FeedError } from "./arxiv-xml.ts";

export const DEFAULT_ARXIV_API_URL = "https://export.arxiv.org/api/query";
/** Ids per query: keeps the URL short and one answer small. */
export const ARXIV_API_BATCH = 100;

export interface ArxivApiOptions {
  client: HttpClient;
  /** The query endpoint, `https://export.arxiv.org/api/query` unless pointed elsewhere. */
  apiUrl?: string;
  batchSize?: number;
}

export interface ArxivDetails {
  found: Map<string, ArxivEntry>;
  /** Ids the API does not know: it answers them with HTTP 200 and no entry. */
  unknown: string[];
  requests: number;
}

/** The API's refusal of a query (error entries in an HTTP-200 answer): one id it cannot read fails them all. */
export class ArxivRefusal extends FeedError {
  override name = "ArxivRefusal";
}

function queryUrl(apiUrl: string, ids: readonly string[]): string {
  const url = new URL(apiUrl);
  url.searchParams.set("id_list", ids.join(","));
  url.searchParams.set("start", "0");
  url.searchParams.set("max_results", String(ids.length));
  return url.toString();
}

/**
 * Details of papers by id from the query API, one request per batch, in order. An answer whose entry count
 * disagrees with its own `opensearch:totalResults`, or that carries error entries, stops the run.
 */
export async function fetchArxivDetails(
  options: ArxivApiOptions,
  ids: readonly string[],
): Promise<ArxivDetails> {
  const apiUrl = options.apiUrl ?? DEFAULT_ARXIV_API_URL;
  const size = options.batchSize ?? ARXIV_API_BATCH;
  const found = new Map<string, ArxivEntry>();
  let requests = 0;
  for (let start = 0; start < ids.length; start += size) {
    const batch = ids.slice(start, start + size);
    const response = await options.client.send({
      url: queryUrl(apiUrl, batch),
      upstream: "arxiv",
      headers: { accept: "application/atom+xml" },
    });
    requests += 1;
    const what = `arXiv API (ids ${start + 1}..${start + batch.length} of ${ids.length})`;
    const feed = readApiFeed(atomFeed(response.text, what));
    if (feed.errors.length > 0) {
      throw new ArxivRefusal(`${what} refused the query: ${feed.errors.join("; ")}`);
    }
    if (feed.totalResults === undefined)
      throw new FeedError(`${what}: the answer has no opensearch:totalResults`);
    const expected = Math.min(feed.totalResults, batch.length);
    if (feed.entries.length !== expected) {
      throw new FeedError(
        `${what}: the answer says ${feed.totalResults} results but holds ${feed.entries.length} entries ` +
          "(a truncated or partial answer)",
      );
    }
    const asked = new Set(batch);
    for (const entry of feed.entries) if (asked.has(entry.id)) found.set(entry.id, entry);
  }
  return { found, unknown: ids.filter((id) => !found.has(id)), requests };
}

/** Papers' texts by id, as the daily job completes the readers' pending library items with them. */
export interface ArxivTexts {
  found: Map<string, { title: string; abstract: string; authors: string[] }>;
  /** Ids the API does not know. */
  unknown: string[];
  /** Ids of a batch whose request failed, with why: they are asked again another day. */
  failed: Map<string, string>;
}

/**
 * `fetchArxivDetails` batch by batch (the client spaces them as arXiv asks), a failed batch recorded
 * for its ids rather than ending the others. arXiv refuses a whole query for one id it cannot read (an
 * error entry), so a batch refused that way is asked again in halves, down to the one id at fault:
 * about 2·log2(batch) more requests for each bad id, and every good id beside it still resolves.
 */
export async function lookupArxivTexts(
  options: ArxivApiOptions,
  ids: readonly string[],
): Promise<ArxivTexts> {
  const texts: ArxivTexts = { found: new Map(), unknown: [], failed: new Map() };
  const size = options.batchSize ?? ARXIV_API_BATCH;
  const ask = async (batch: readonly string[]): Promise<void> => {
    try {
      const details = await fetchArxivDetails(options, batch);
      for (const [id, entry] of details.found) {
        texts.found.set(id, { title: entry.title, abstract: entry.summary, authors: entry.authors });
      }
      texts.unknown.push(...details.unknown);
    } catch (error) {
      if (error instanceof ArxivRefusal && batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await ask(batch.slice(0, half));
        await ask(batch.slice(half));
        return;
      }
      for (const id of batch) texts.failed.set(id, `the arXiv API failed: ${(error as Error).message}`);
    }
  };
  for (let start = 0; start < ids.length; start += size) await ask(ids.slice(start, start + size));
  return texts;
}

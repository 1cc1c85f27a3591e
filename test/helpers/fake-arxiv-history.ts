// A fake arXiv query API on loopback for past days: it answers `search_query=(cat:A OR cat:B) AND
// submittedDate:[FROM TO]` with paging, from the real recorded answer in ../shared/fixtures (its feed
// header and its 100 entries, kept verbatim) with each entry's `<published>` moved to a submission time
// the test chooses. The filtering, ordering and paging are the API's: by category term, by submission
// minute (GMT, both ends included), ascending, `start` and `max_results`.

import type { FakeReply, SeenRequest } from "./fake-upstream.ts";
import { fixtureText } from "./fake-upstream.ts";

export const HISTORY_FIXTURE = "arxiv/api-query-100-entries.xml";

export interface HistoryEntry {
  /** Versionless arXiv id, as the entry's `<id>` holds it. */
  id: string;
  published: Date;
  categories: string[];
  text: string;
}

const minute = (instant: Date): string => instant.toISOString().slice(0, 16).replace(/[-T:]/g, "");

/** The recorded feed split into its header and entries, each entry given `submitted(index)` as its time. */
export function historyEntries(submitted: (index: number) => Date): {
  header: string;
  entries: HistoryEntry[];
} {
  const body = fixtureText(HISTORY_FIXTURE);
  const first = body.indexOf("<entry>");
  const header = body.slice(0, first);
  const blocks = body.slice(first, body.lastIndexOf("</feed>")).split(/(?=<entry>)/);
  const entries = blocks.map((block, index) => {
    const published = submitted(index);
    const text = block.replace(
      /<published>[^<]*<\/published>/,
      `<published>${published.toISOString().slice(0, 19)}Z</published>`,
    );
    const id = /<id>https?:\/\/arxiv\.org\/abs\/([^<]+?)(?:v\d+)?<\/id>/.exec(block)?.[1] ?? `entry-${index}`;
    const categories = [...block.matchAll(/<category term="([^"]+)"/g)].map((match) => match[1] as string);
    return { id, published, categories, text };
  });
  return { header, entries };
}

/** The entries a query selects, in the API's order. */
export function selectEntries(entries: readonly HistoryEntry[], query: string): HistoryEntry[] {
  const cats = new Set([...query.matchAll(/cat:([A-Za-z.-]+)/g)].map((match) => match[1] as string));
  const range = /submittedDate:\[(\d{12}) TO (\d{12})\]/.exec(query);
  if (!range) throw new Error(`the fake needs a submittedDate range, got ${query}`);
  const [, from, to] = range as unknown as [string, string, string];
  return entries
    .filter((entry) => entry.categories.some((category) => cats.has(category)))
    .filter((entry) => minute(entry.published) >= from && minute(entry.published) <= to)
    .sort((a, b) => a.published.getTime() - b.published.getTime());
}

/** The answer to one request: a page of the selected entries under the recorded header. */
export function historyReply(
  header: string,
  entries: readonly HistoryEntry[],
  request: SeenRequest,
): FakeReply {
  const query = request.query.get("search_query") ?? "";
  const selected = selectEntries(entries, query);
  const start = Number(request.query.get("start") ?? 0);
  const size = Number(request.query.get("max_results") ?? 10);
  const page = selected.slice(start, start + size);
  const head = header
    .replace(/<opensearch:totalResults>\d+/, `<opensearch:totalResults>${selected.length}`)
    .replace(/<opensearch:startIndex>\d+/, `<opensearch:startIndex>${start}`)
    .replace(/<opensearch:itemsPerPage>\d+/, `<opensearch:itemsPerPage>${size}`);
  return {
    headers: { "content-type": "application/atom+xml; charset=utf-8" },
    body: `${head}${page.map((entry) => entry.text).join("")}</feed>\n`,
  };
}

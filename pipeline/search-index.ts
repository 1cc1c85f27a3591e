import { gzipSync } from "node:zlib";
import MiniSearch, { type AsPlainObject } from "minisearch";
import {
  SEARCH_FIELDS,
  SEARCH_INDEX_VERSION,
  SEARCH_STOP_WORDS,
  SEARCH_STORE_FIELDS,
  type SearchDocument,
  searchDocuments,
} from "./domain/search-index.ts";
import type { DailySnapshot } from "./domain/snapshot.ts";

// The archive's search index, built once per `picks curate` run and loaded by the page only when the
// search box is used. It is MiniSearch's own serialisation with one change, its postings lists:
// MiniSearch writes each as an object `{"1234": 1, "1240": 2}`; here each is an array of gaps between
// ascending ids, a term frequency above 1 following its id as a negative number: `[1235, 6, -2]`.
// public/assets/search-index-codec.js turns it back before MiniSearch.loadJS. Measured on a year of
// generated days (1,305 picks of 441 real abstracts): 1.90 MB / 486 KB gzip as MiniSearch writes it,
// 1.14 MB / 270 KB gzip with the gaps, which is what brings a year under the page's 300 KB budget.

type Postings = Record<string, Record<string, number>>;
type EncodedPostings = Record<string, number[]>;

/** `public/v1/search-index.json`: the index and the options it was built with. */
export interface SearchIndexFile {
  version: number;
  generated_at: string;
  documents: number;
  options: { fields: string[]; storeFields: string[] };
  index: Omit<AsPlainObject, "index"> & { index: Array<[string, EncodedPostings]> };
}

/** One term's postings, per field, as ascending id gaps with frequencies above 1 as negatives. */
export function encodePostings(postings: Postings): EncodedPostings {
  const encoded: EncodedPostings = {};
  for (const [field, byId] of Object.entries(postings)) {
    const entries = Object.entries(byId)
      .map(([id, frequency]) => [Number(id), frequency] as const)
      .sort((a, b) => a[0] - b[0]);
    const list: number[] = [];
    let previous = -1;
    for (const [id, frequency] of entries) {
      list.push(id - previous);
      previous = id;
      if (frequency > 1) list.push(-frequency);
    }
    encoded[field] = list;
  }
  return encoded;
}

// Stop words go everywhere; bare numbers only from summaries (an arXiv id's parts stay searchable).
const indexTerm = (term: string, field?: string): string | null => {
  const lower = term.toLowerCase();
  if (SEARCH_STOP_WORDS.has(lower)) return null;
  if (field === "summary" && /^\d+$/.test(lower)) return null;
  return lower;
};

/** Builds the index file of every published day; `content` is what gets written. */
export function buildSearchIndex(
  days: readonly DailySnapshot[],
  generatedAt: string,
): { content: string; documents: number; bytes: number; gzipBytes: number } {
  const documents = searchDocuments(days);
  const options = { fields: [...SEARCH_FIELDS], storeFields: [...SEARCH_STORE_FIELDS] };
  const search = new MiniSearch<SearchDocument>({ ...options, processTerm: indexTerm });
  search.addAll(documents);
  const plain = search.toJSON();
  const file: SearchIndexFile = {
    version: SEARCH_INDEX_VERSION,
    generated_at: generatedAt,
    documents: documents.length,
    options,
    index: {
      ...plain,
      index: plain.index.map(([term, postings]) => [term, encodePostings(postings as Postings)]),
    },
  };
  const content = JSON.stringify(file);
  return {
    content,
    documents: documents.length,
    bytes: Buffer.byteLength(content),
    gzipBytes: gzipSync(content).byteLength,
  };
}

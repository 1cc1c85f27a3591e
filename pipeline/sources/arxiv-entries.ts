// What arXiv's two feeds say about papers: the daily announcement listing (rss.arxiv.org/atom/...) and the
// query API (export.arxiv.org/api/query). Pure: parsed XML in, plain values out.

import { normalizeArxivRef } from "../domain/arxiv-id.ts";
import {
  ARXIV_NS,
  ATOM_NS,
  childOf,
  childrenOf,
  DC_NS,
  FeedError,
  OPENSEARCH_NS,
  textOf,
  type XmlElement,
} from "./arxiv-xml.ts";

/** One paper as a feed describes it; fields the feed does not carry are empty or absent. */
export interface ArxivEntry {
  /** Versionless id, e.g. `2508.13426` or `cond-mat/0412498`. */
  id: string;
  /** The id as the feed wrote it, version included, for messages. */
  rawId: string;
  title: string;
  summary: string;
  authors: string[];
  categories: string[];
  comment?: string;
  /** Listing only: `new`, `cross`, `replace`, `replace-cross`. */
  announceType?: string;
  /** The `published` timestamp as written, e.g. `2025-08-20T00:00:00-04:00`. */
  published?: string;
}

/** An entry the feed carried but that is not a paper (no usable id). */
export interface BadEntry {
  where: string;
  id?: string;
  reason: string;
}

export interface ListingFeed {
  updated?: string;
  entries: ArxivEntry[];
  bad: BadEntry[];
}

export interface ApiFeed {
  totalResults: number | undefined;
  entries: ArxivEntry[];
  /** Error entries (`.../api/errors#...`): the API's way to refuse a query with HTTP 200. */
  errors: string[];
}

const LISTING_PREFIX = /^arXiv:\S+\s+Announce Type:\s*\S+\s*(?:Abstract:\s*)?/i;

const categoriesOf = (entry: XmlElement): string[] =>
  childrenOf(entry, ATOM_NS, "category")
    .map((category) => category.attrs.term?.trim() ?? "")
    .filter(Boolean);

function readEntry(entry: XmlElement, rawId: string, id: string): Omit<ArxivEntry, "authors"> {
  const read: Omit<ArxivEntry, "authors"> = {
    id,
    rawId,
    title: textOf(entry, ATOM_NS, "title") ?? "",
    summary: textOf(entry, ATOM_NS, "summary") ?? "",
    categories: categoriesOf(entry),
  };
  const comment = textOf(entry, ARXIV_NS, "comment");
  if (comment) read.comment = comment;
  const published = textOf(entry, ATOM_NS, "published");
  if (published) read.published = published;
  return read;
}

/** Reads the announcement listing: ids from `oai:arXiv.org:ID`, authors from `dc:creator`, the abstract without its prefix. */
export function readListing(feed: XmlElement): ListingFeed {
  const entries: ArxivEntry[] = [];
  const bad: BadEntry[] = [];
  for (const [index, entry] of childrenOf(feed, ATOM_NS, "entry").entries()) {
    const where = `listing entry ${index + 1}`;
    const rawId = (textOf(entry, ATOM_NS, "id") ?? "").replace(/^oai:arXiv\.org:/i, "");
    const id = normalizeArxivRef(rawId);
    if (id === undefined) {
      bad.push({ where, ...(rawId ? { id: rawId.slice(0, 80) } : {}), reason: "malformed arXiv id" });
      continue;
    }
    const read = readEntry(entry, rawId, id);
    const fromSummary = /Announce Type:\s*(\S+)/i.exec(read.summary)?.[1];
    const announceType = textOf(entry, ARXIV_NS, "announce_type") ?? fromSummary;
    read.summary = read.summary.replace(LISTING_PREFIX, "");
    if (announceType) read.announceType = announceType.toLowerCase();
    const authors = childrenOf(entry, DC_NS, "creator")
      .flatMap((creator) => creator.text.split(","))
      .map((name) => name.replace(/\s+/g, " ").trim())
      .filter(Boolean);
    entries.push({ ...read, authors });
  }
  const updated = textOf(feed, ATOM_NS, "updated");
  return { ...(updated ? { updated } : {}), entries, bad };
}

/** Reads a query API answer, either format: `<author><name>`, `arxiv:comment`, `opensearch:totalResults`. */
export function readApiFeed(feed: XmlElement): ApiFeed {
  const entries: ArxivEntry[] = [];
  const errors: string[] = [];
  for (const entry of childrenOf(feed, ATOM_NS, "entry")) {
    const rawId = textOf(entry, ATOM_NS, "id") ?? "";
    if (/\/api\/errors/.test(rawId)) {
      errors.push(textOf(entry, ATOM_NS, "summary") ?? rawId);
      continue;
    }
    const id = normalizeArxivRef(rawId);
    if (id === undefined) {
      errors.push(`an entry with an id that is not an arXiv id: ${rawId.slice(0, 80)}`);
      continue;
    }
    const authors = childrenOf(entry, ATOM_NS, "author")
      .map((author) => childOf(author, ATOM_NS, "name")?.text.replace(/\s+/g, " ").trim() ?? "")
      .filter(Boolean);
    entries.push({ ...readEntry(entry, rawId.replace(/^.*\/abs\//, ""), id), authors });
  }
  const total = textOf(feed, OPENSEARCH_NS, "totalResults");
  if (total !== undefined && !/^\d+$/.test(total)) {
    throw new FeedError(`arXiv API: opensearch:totalResults is not a number: ${total.slice(0, 40)}`);
  }
  return { totalResults: total === undefined ? undefined : Number(total), entries, errors };
}

/** The announcement day of a listing: the day its entries were published, else the day it was updated. */
export function listingDay(listing: ListingFeed): string | undefined {
  const counts = new Map<string, number>();
  for (const entry of listing.entries) {
    const day = entry.published?.slice(0, 10);
    if (day) counts.set(day, (counts.get(day) ?? 0) + 1);
  }
  let best: [string, number] | undefined;
  for (const pair of counts) if (!best || pair[1] > best[1]) best = pair;
  return best?.[0] ?? listing.updated?.slice(0, 10);
}

import { collectCandidates, type RawRow } from "../domain/candidate-rows.ts";
import { HttpError } from "../http-rules.ts";
import { type ArxivApiOptions, fetchArxivDetails } from "./arxiv-api.ts";
import { type ArxivEntry, type ListingFeed, listingDay, readListing } from "./arxiv-entries.ts";
import { atomFeed } from "./arxiv-xml.ts";
import { type CandidateSource, SourceError } from "./source.ts";

export const DEFAULT_ARXIV_LISTING_URL = "https://rss.arxiv.org/atom";
export const DEFAULT_CATEGORIES: readonly string[] = ["cs.AI", "cs.LG", "cs.CL", "cs.MA", "cs.CR", "cs.SE"];
/** Announcements that are new papers to the day; replacements are revisions of older ones. */
const CANDIDATE_TYPES = new Set(["new", "cross"]);

export interface ArxivSourceOptions extends ArxivApiOptions {
  categories: readonly string[];
  /** The listing root; the categories are appended as `/cs.AI+cs.LG`. */
  listingUrl?: string;
  /**
   * `all` (default): complete every candidate from the query API, which adds the author comment (code
   * links, venues) that the listing never carries; `missing`: only candidates lacking title, abstract or authors.
   */
  details?: "all" | "missing";
}

export interface ArxivSource extends CandidateSource {
  /** The announcement day the live listing holds now: the only day this source can give. */
  latestDay(): Promise<string>;
}

const lacksDetails = (entry: ArxivEntry) => !entry.title || !entry.summary || entry.authors.length === 0;

/** The listing's values, with the API's wherever the API has one. */
function merged(entry: ArxivEntry, details: ArxivEntry | undefined): Record<string, unknown> {
  const pick = <T>(api: T | undefined, listing: T, empty: (value: T) => boolean): T =>
    api !== undefined && !empty(api) ? api : listing;
  const comment = details?.comment ?? entry.comment;
  return {
    id: entry.id,
    title: pick(details?.title, entry.title, (text) => text === ""),
    summary: pick(details?.summary, entry.summary, (text) => text === ""),
    authors: pick(details?.authors, entry.authors, (list) => list.length === 0),
    categories: pick(details?.categories, entry.categories, (list) => list.length === 0),
    ...(comment ? { comment } : {}),
  };
}

function typeCounts(entries: readonly ArxivEntry[]): string {
  const counts = new Map<string, number>();
  for (const entry of entries)
    counts.set(entry.announceType ?? "new", (counts.get(entry.announceType ?? "new") ?? 0) + 1);
  return [...counts].map(([type, count]) => `${count} ${type}`).join(", ") || "none";
}

/** An upstream that failed for good stops the run like any other source problem: nothing is published. */
async function asSourceError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof HttpError) throw new SourceError(error.message);
    throw error;
  }
}

/**
 * The day's announcements from arXiv: the listing feed of the categories, new and cross-listed papers,
 * completed from the query API. Only the latest announcement day is available; an empty listing
 * (weekends, holidays) is a valid empty day.
 */
export function createArxivSource(options: ArxivSourceOptions): ArxivSource {
  if (options.categories.length === 0) throw new SourceError("the arXiv source needs at least one category");
  const root = (options.listingUrl ?? DEFAULT_ARXIV_LISTING_URL).replace(/\/+$/, "");
  const url = `${root}/${options.categories.join("+")}`;
  const name = `arxiv:${options.categories.join("+")}`;
  let listing: Promise<ListingFeed> | undefined;

  function fetchListing(): Promise<ListingFeed> {
    listing ??= asSourceError(
      options.client
        .send({ url, upstream: "arxiv", headers: { accept: "application/atom+xml" } })
        .then((response) => readListing(atomFeed(response.text, `arXiv listing ${url}`))),
    );
    listing.catch(() => {
      listing = undefined;
    });
    return listing;
  }

  async function latestDay(): Promise<string> {
    const day = listingDay(await fetchListing());
    if (day === undefined) throw new SourceError(`arXiv listing ${url}: neither entries nor an update time`);
    return day;
  }

  return {
    name,
    latestDay,
    async load(date) {
      const feed = await fetchListing();
      const day = await latestDay();
      if (day !== date) {
        throw new SourceError(
          `the arXiv listing holds the announcements of ${day}, not ${date}; the live listing has only the ` +
            `latest day (curate ${day}, or use --source file:PATH for another day)`,
        );
      }
      const kept = feed.entries.filter((entry) => CANDIDATE_TYPES.has(entry.announceType ?? "new"));
      const ignored = feed.entries.length - kept.length;
      const ids = [...new Set(kept.map((entry) => entry.id))];
      const lacking = new Set(kept.filter(lacksDetails).map((entry) => entry.id));
      const wanted = options.details === "missing" ? ids.filter((id) => lacking.has(id)) : ids;
      const details = await asSourceError(fetchArxivDetails(options, wanted));
      const rows: RawRow[] = kept.map((entry) => ({
        value: merged(entry, details.found.get(entry.id)),
        where: `listing entry ${feed.entries.indexOf(entry) + 1} (${entry.rawId})`,
      }));
      const batch = collectCandidates(rows, { source: name, sample: false });
      batch.skipped.unshift(...feed.bad);
      const unknown = details.unknown.length;
      batch.notes = [
        `listing ${url}: ${feed.entries.length} entries (${typeCounts(feed.entries)})` +
          (ignored > 0 ? `; ${ignored} replacements of older papers left out` : ""),
        `details: ${details.requests} query API request${details.requests === 1 ? "" : "s"} for ` +
          `${wanted.length} ids` +
          (unknown > 0
            ? `; ${unknown} unknown to the API, kept as listed: ${details.unknown.slice(0, 10).join(", ")}`
            : ""),
      ];
      return batch;
    },
  };
}

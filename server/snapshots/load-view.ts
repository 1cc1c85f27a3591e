import type { Readable } from "node:stream";
import { contentHash } from "../../pipeline/origin/content-hash.ts";
import type { PreparedResponse } from "../http/prepared.ts";
import type { SnapshotSource, SourceEntry } from "./snapshot-source.ts";

/** What a file held ready was made from: a reload reuses it while the source's version is the same. */
export interface HeldFile {
  version: string;
  prepared: PreparedResponse;
}

/** One load's look at the source: its listing, and reads that reuse what the last load already held. */
export interface LoadView {
  listing: ReadonlyMap<string, SourceEntry>;
  /**
   * The prepared answer of a file held ready in memory (the site, the moving files, the newest days):
   * the previous load's when the file is unchanged, else read and made by `make`; undefined when the
   * file is not published or is gone.
   */
  hold(key: string, make: (body: Buffer) => PreparedResponse): Promise<PreparedResponse | undefined>;
  /** The bytes of a file read once, not held: undefined when it is not published or is gone. */
  read(key: string): Promise<Buffer | undefined>;
  /** A file read a line at a time (the picks index): undefined when it is not published or is gone. */
  stream(key: string): Promise<Readable | undefined>;
  /** What this load holds, for the next load to reuse. */
  readonly held: Map<string, HeldFile>;
}

/**
 * Lists the source once and reads through it; from a bucket, a reload therefore fetches only the files
 * whose hash the manifest changed.
 */
export async function openLoadView(
  source: SnapshotSource,
  previous: ReadonlyMap<string, HeldFile>,
): Promise<LoadView> {
  const listing = await source.listing();
  const held = new Map<string, HeldFile>();
  // A bucket's manifest names each file's hash: bytes that differ (a publish still under way, a file
  // replaced by hand) fail the load, and the last good set stays served until the next look.
  const readChecked = async (key: string): Promise<Buffer | undefined> => {
    const entry = listing.get(key);
    if (!entry) return undefined;
    const body = await source.read(key);
    if (body && entry.sha256 !== undefined && contentHash(body) !== entry.sha256) {
      throw new Error(`${key} does not match its hash in the manifest`);
    }
    return body;
  };
  return {
    listing,
    held,
    async hold(key, make) {
      const entry = listing.get(key);
      if (!entry) return undefined;
      const known = previous.get(key);
      if (known && known.version === entry.version) {
        held.set(key, known);
        return known.prepared;
      }
      const body = await readChecked(key);
      if (!body) return undefined;
      const prepared = make(body);
      held.set(key, { version: entry.version, prepared });
      return prepared;
    },
    read: readChecked,
    stream: (key) => (listing.has(key) ? source.stream(key) : Promise.resolve(undefined)),
  };
}

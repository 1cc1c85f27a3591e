import type { Readable } from "node:stream";
import { IntegrityError } from "../../pipeline/origin/origin.ts";
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
  /**
   * The bytes of a file read once, not held: undefined when it is not published or is gone. A bucket's
   * bytes are checked against the manifest as they are read: an IntegrityError when they differ.
   */
  read(key: string): Promise<Buffer | undefined>;
  /**
   * A file read a line at a time (the picks index): undefined when it is not published or is gone. From
   * a bucket, the stream fails at its end when the bytes were not the manifest's.
   */
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
  const read = (key: string) => (listing.has(key) ? source.read(key) : Promise.resolve(undefined));
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
      let body: Buffer | undefined;
      try {
        body = await read(key);
      } catch (error) {
        // Bytes that are not the manifest's (the source names them in `/health`): this file alone
        // keeps its last good copy, or is not served; every other file loads as usual.
        if (!(error instanceof IntegrityError)) throw error;
        if (known) held.set(key, known);
        return known?.prepared;
      }
      if (!body) return undefined;
      const prepared = make(body);
      held.set(key, { version: entry.version, prepared });
      return prepared;
    },
    read,
    stream: (key) => (listing.has(key) ? source.stream(key) : Promise.resolve(undefined)),
  };
}

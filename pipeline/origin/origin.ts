import type { Readable } from "node:stream";

// Where published snapshots live: one interface, a folder driver and an S3-compatible bucket driver,
// held to one contract suite (test/pipeline/origin/contract.test.ts). Keys are paths inside the
// published tree (`v1/daily/2026-11-20.json`, `index.html`); callers never branch on the driver.

/** A stored file as a listing shows it. */
export interface OriginEntry {
  key: string;
  size: number;
  modifiedMs: number;
}

/** What is stored with an object besides its bytes. */
export interface ObjectMeta {
  size: number;
  /** The store's version tag, for a conditional write; not a content hash. */
  etag: string;
  contentType: string | undefined;
  cacheControl: string | undefined;
  /** The content's SHA-256 (hex) as the publisher recorded it. */
  sha256: string | undefined;
}

export interface WriteMeta {
  contentType: string;
  cacheControl: string;
  sha256: string;
  /**
   * The fencing token of the publisher's lease, stored with the object: which publish wrote it. A store
   * cannot refuse a write by it; the publisher stops writing once its lease is lost (publish-lease.ts).
   */
  fence?: string;
}

/** A write that happens only if the stored object is still the one seen (`ifMatch`) or absent. */
export type WriteCondition = { ifMatch: string } | { ifNoneMatch: "*" };

export interface OriginDriver {
  /** Where it is, for messages: a folder's path or `s3://bucket/prefix at ENDPOINT`. Never a secret. */
  readonly label: string;
  /** Every stored key under `prefix` ("" for all), in key order, across every page of the store's listing. */
  list(prefix: string): Promise<OriginEntry[]>;
  /**
   * The bytes of `key`, or undefined when there is no such object. Larger than `maxBytes`: a
   * TooLargeError, with no more than that read.
   */
  read(key: string, maxBytes?: number): Promise<Buffer | undefined>;
  /** The bytes of `key` as a stream, for a file read a line at a time; undefined when absent. */
  readStream(key: string): Promise<Readable | undefined>;
  head(key: string): Promise<ObjectMeta | undefined>;
  /**
   * The bytes and tag of `key`, or "unchanged" while its tag is still `etag`; undefined when absent.
   * Larger than `maxBytes`: an error, before the body is read.
   */
  readIfChanged(
    key: string,
    etag: string | undefined,
    maxBytes?: number,
  ): Promise<{ body: Buffer; etag: string } | "unchanged" | undefined>;
  /**
   * Stores `body` at `key` with its metadata. With `condition`, writes only if it holds, else throws
   * a ConditionFailedError having written nothing; a store that cannot check conditions throws
   * ConditionsUnsupportedError, also having written nothing.
   */
  write(key: string, body: Buffer, meta: WriteMeta, condition?: WriteCondition): Promise<{ etag: string }>;
  remove(key: string): Promise<void>;
  close(): void;
}

/** A conditional write found the object changed (or present) since it was seen. */
export class ConditionFailedError extends Error {
  override name = "ConditionFailedError";
}

/** The store does not implement conditional writes (Backblaze B2, GCS's S3 interoperability). */
export class ConditionsUnsupportedError extends Error {
  override name = "ConditionsUnsupportedError";
}

/** An object larger than its reader accepts: refused before its body is read. */
export class TooLargeError extends Error {
  override name = "TooLargeError";
}

/** The origin cannot be used as configured: a missing bucket, refused credentials, no connection. */
export class OriginError extends Error {
  override name = "OriginError";
}

/** Bytes that are not the ones the manifest names (a different hash, or more or fewer of them). */
export class IntegrityError extends Error {
  override name = "IntegrityError";
}

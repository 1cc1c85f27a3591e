import {
  MANIFEST_VERSION,
  MAX_MANIFEST_BYTES,
  type Manifest,
  type ManifestEntry,
  parseManifest,
} from "../domain/manifest.ts";
import {
  MANIFEST_KEY,
  objectKey,
  type PublishedHeaders,
  publishedHeaders,
} from "../domain/published-files.ts";
import { contentHash } from "./content-hash.ts";
import { IntegrityError, type OriginDriver, TooLargeError } from "./origin.ts";

// What the publisher, the history pull and the servers' bucket source all do the same way with an
// origin: read its manifest, read a file the manifest names (and check it), wait for a batch of writes.

/** The headers of a key already known to be published (a listing filtered by publishedHeaders). */
export function headersOf(key: string): PublishedHeaders {
  const headers = publishedHeaders(key);
  if (!headers) throw new Error(`not a published key: ${key}`);
  return headers;
}

/**
 * Waits for every task to settle, then throws the first failure: none is left writing after the
 * caller has moved on (or closed the origin).
 */
export async function settleAll<T>(tasks: ReadonlyArray<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(tasks);
  const failed = settled.find((outcome) => outcome.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}

export interface ReadManifest {
  manifest: Manifest;
  etag: string;
}

/**
 * The published manifest and its tag, or null when nothing was published yet; "unchanged" while its
 * tag is still `etag`. Throws on a corrupt one. Body and tag come from one answer: a tag from a
 * separate look could belong to a newer manifest.
 */
export async function readManifest(origin: OriginDriver): Promise<ReadManifest | null>;
export async function readManifest(
  origin: OriginDriver,
  etag: string | undefined,
): Promise<ReadManifest | "unchanged" | null>;
export async function readManifest(
  origin: OriginDriver,
  etag?: string,
): Promise<ReadManifest | "unchanged" | null> {
  const answer = await origin.readIfChanged(MANIFEST_KEY, etag, MAX_MANIFEST_BYTES);
  if (answer === "unchanged") return "unchanged";
  if (answer === undefined) return null;
  const manifest = parseManifest(answer.body);
  if ("problem" in manifest) throw new Error(`${MANIFEST_KEY} in ${origin.label} is ${manifest.problem}`);
  return { manifest, etag: answer.etag };
}

/** Where a manifest's file is read: its object (named by its hash), or its path in a version-1 bucket. */
export const storedKeyOf = (
  manifest: Pick<Manifest, "version">,
  key: string,
  entry: ManifestEntry,
): string => (manifest.version === MANIFEST_VERSION ? objectKey(entry.sha256) : key);

/**
 * The bytes of a file the manifest names, checked against it: no more than its size is read, and a
 * different hash is an IntegrityError. Undefined when the store has no such object.
 */
export async function readNamed(
  origin: OriginDriver,
  manifest: Pick<Manifest, "version">,
  key: string,
  entry: ManifestEntry,
): Promise<Buffer | undefined> {
  let body: Buffer | undefined;
  try {
    body = await origin.read(storedKeyOf(manifest, key, entry), entry.size);
  } catch (error) {
    if (error instanceof TooLargeError) {
      throw new IntegrityError(`${key} is larger than the ${entry.size} bytes the manifest gives`);
    }
    throw error;
  }
  if (body && contentHash(body) !== entry.sha256) {
    throw new IntegrityError(`${key} does not match its hash in the manifest`);
  }
  return body;
}

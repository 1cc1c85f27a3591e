import { z } from "zod";
import { byPublishOrder, DAY_KEY, MANIFEST_KEY } from "./published-files.ts";

// The manifest names every published file with its content hash, so that a publisher uploads only
// what changed and a server fetches only what changed. It is written last: whatever it names is
// already in place, its object under `v1/objects/<sha256>` and its path alike.

/** A key of the published tree: plain path segments, no `.` or `..`, no leading slash. */
export const PublishedKeySchema = z
  .string()
  .max(512)
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/);

/** No published file comes near this; a manifest that says otherwise is not trusted. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Ten years of days and their site are under 4,000 files. */
export const MAX_MANIFEST_FILES = 200_000;

export const ManifestEntrySchema = z.strictObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative().max(MAX_FILE_BYTES),
  /** When the file last changed in the folder it was published from. */
  modified: z.iso.datetime(),
});

/** Twenty years of days: a server holds every published day's list items in memory. */
export const MAX_PUBLISHED_DAYS = 7_300;

/**
 * 1: the files are read at their paths (a bucket published before objects were named by hash);
 * 2: every file's bytes are also stored at `v1/objects/<sha256>`, where servers read them.
 */
export const MANIFEST_VERSION = 2;

export const ManifestSchema = z.strictObject({
  version: z.union([z.literal(1), z.literal(MANIFEST_VERSION)]),
  generated_at: z.iso.datetime(),
  newest_day: z.iso.date().nullable(),
  files: z
    .record(PublishedKeySchema, ManifestEntrySchema)
    .refine((files) => Object.keys(files).length <= MAX_MANIFEST_FILES, `at most ${MAX_MANIFEST_FILES} files`)
    .refine(
      (files) => Object.keys(files).filter((key) => DAY_KEY.test(key)).length <= MAX_PUBLISHED_DAYS,
      `at most ${MAX_PUBLISHED_DAYS} days (twenty years), the most a server holds`,
    ),
});

export type ManifestEntry = z.infer<typeof ManifestEntrySchema>;
export type Manifest = z.infer<typeof ManifestSchema>;

/** A manifest larger than this is refused unread: ten years of days make about 400 KB. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** What the store holds besides the manifest, from its listing. */
export interface StoredObjects {
  /** The hashes with an object under `v1/objects/`. */
  objects: ReadonlySet<string>;
  /** The published paths present, when they were listed (only needed for keys without an object). */
  paths?: ReadonlySet<string>;
}

export interface PublishPlan {
  /** Objects to store, by hash, each with a local key holding those bytes. */
  objects: Map<string, string>;
  /**
   * Published keys the folder lacks whose object is missing but whose file is at its path (a bucket
   * published before objects were named by hash): their bytes are copied into an object.
   */
  adopt: string[];
  /** Paths to upload for the CDN, in publish order (see published-files.ts). */
  uploads: string[];
  /** Keys whose content the store already has at their path. */
  unchanged: string[];
  /** Keys of the previous manifest with neither an object nor a file: left out of the new one. */
  dropped: string[];
  /** The manifest to write after the uploads; null when the published set did not change. */
  manifest: Manifest | null;
}

/** The newest dated day among `keys`, or null. */
export function newestDay(keys: Iterable<string>): string | null {
  let newest: string | null = null;
  for (const key of keys) {
    const date = DAY_KEY.exec(key)?.[1];
    if (date !== undefined && (newest === null || date > newest)) newest = date;
  }
  return newest;
}

/**
 * What to upload so that the store holds `local`: an object for every hash it lacks, and the path of
 * every key whose hash differs from `remote`'s. Keys the store has and the folder lacks stay published
 * and stay in the manifest (a working copy that misses old days never erases them), unless the store
 * holds no bytes for them at all. Without `stored` (before the store was listed), the objects a
 * version-2 manifest names are taken as present: enough to tell an unchanged folder.
 *
 * @example planPublish(new Map([["v1/recent.json", entry]]), null, { objects: new Set() }, now).uploads // ["v1/recent.json"]
 */
export function planPublish(
  local: ReadonlyMap<string, ManifestEntry>,
  remote: Manifest | null,
  stored: StoredObjects | null,
  generatedAt: string,
): PublishPlan {
  const before = remote?.files ?? {};
  const named = new Set(
    remote?.version === MANIFEST_VERSION ? Object.values(before).map((e) => e.sha256) : [],
  );
  const present = stored?.objects ?? named;
  const files: Record<string, ManifestEntry> = {};
  const plan: PublishPlan = {
    objects: new Map(),
    adopt: [],
    uploads: [],
    unchanged: [],
    dropped: [],
    manifest: null,
  };
  for (const [key, entry] of Object.entries(before)) {
    if (local.has(key)) continue;
    if (present.has(entry.sha256) || stored === null) files[key] = entry;
    else if (stored.paths?.has(key)) {
      plan.adopt.push(key);
      files[key] = entry;
    } else plan.dropped.push(key);
  }
  for (const [key, entry] of [...local].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (key === MANIFEST_KEY) continue;
    files[key] = entry;
    if (!present.has(entry.sha256) && !plan.objects.has(entry.sha256)) plan.objects.set(entry.sha256, key);
    const known = Object.hasOwn(before, key) ? before[key] : undefined;
    if (known && known.sha256 === entry.sha256 && known.size === entry.size) plan.unchanged.push(key);
    else plan.uploads.push(key);
  }
  plan.uploads.sort(byPublishOrder);
  const idle =
    remote?.version === MANIFEST_VERSION &&
    plan.uploads.length + plan.objects.size + plan.adopt.length + plan.dropped.length === 0;
  if (idle) return plan;
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
  plan.manifest = {
    version: MANIFEST_VERSION,
    generated_at: generatedAt,
    newest_day: newestDay(Object.keys(sorted)),
    files: sorted,
  };
  return plan;
}

/** Reads a manifest's bytes; a reason instead when they are not one. */
export function parseManifest(body: Uint8Array): Manifest | { problem: string } {
  if (body.byteLength > MAX_MANIFEST_BYTES) return { problem: `larger than ${MAX_MANIFEST_BYTES} bytes` };
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return { problem: "not valid JSON" };
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { problem: `not a valid manifest (${issue?.path.join(".") || "/"}: ${issue?.message})` };
  }
  return parsed.data;
}

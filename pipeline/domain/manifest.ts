import { z } from "zod";
import { DAY_KEY, MANIFEST_KEY, POINTER_KEY, publishPhase } from "./published-files.ts";

// The manifest names every published file with its content hash, so that a publisher uploads only
// what changed and a server fetches only what changed. It is written last: whatever it names is
// already in place.

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

export const ManifestSchema = z.strictObject({
  version: z.literal(1),
  generated_at: z.iso.datetime(),
  newest_day: z.iso.date().nullable(),
  files: z
    .record(PublishedKeySchema, ManifestEntrySchema)
    .refine(
      (files) => Object.keys(files).length <= MAX_MANIFEST_FILES,
      `at most ${MAX_MANIFEST_FILES} files`,
    ),
});

export type ManifestEntry = z.infer<typeof ManifestEntrySchema>;
export type Manifest = z.infer<typeof ManifestSchema>;

/** A manifest larger than this is refused unread: ten years of days make about 400 KB. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

export interface PublishPlan {
  /** Keys to upload, in the order they must go: days, assets, derived files, the pointer. */
  uploads: string[];
  /** Keys whose content the store already has. */
  unchanged: string[];
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
 * What to upload so that the store holds `local`: every key whose hash differs from `remote`'s. Keys
 * the store has and the folder lacks stay published and stay in the manifest: a working copy that
 * misses old days never erases them.
 *
 * @example planPublish(new Map([["v1/recent.json", entry]]), null, now).uploads // ["v1/recent.json"]
 */
export function planPublish(
  local: ReadonlyMap<string, ManifestEntry>,
  remote: Manifest | null,
  generatedAt: string,
): PublishPlan {
  const before = remote?.files ?? {};
  const files: Record<string, ManifestEntry> = { ...before };
  const uploads: string[] = [];
  const unchanged: string[] = [];
  for (const [key, entry] of local) {
    if (key === MANIFEST_KEY) continue;
    const known = Object.hasOwn(before, key) ? before[key] : undefined;
    if (known && known.sha256 === entry.sha256 && known.size === entry.size) {
      unchanged.push(key);
      continue;
    }
    uploads.push(key);
    files[key] = entry;
  }
  uploads.sort((a, b) => publishPhase(a) - publishPhase(b) || (a < b ? -1 : a > b ? 1 : 0));
  if (uploads.length === 0 && remote !== null) return { uploads, unchanged, manifest: null };
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
  return {
    uploads,
    unchanged,
    manifest: {
      version: 1,
      generated_at: generatedAt,
      newest_day: newestDay(Object.keys(sorted)),
      files: sorted,
    },
  };
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

export { MANIFEST_KEY, POINTER_KEY };

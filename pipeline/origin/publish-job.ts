import pLimit from "p-limit";
import {
  MANIFEST_KEY,
  MAX_MANIFEST_BYTES,
  type Manifest,
  type ManifestEntry,
  POINTER_KEY,
  parseManifest,
  planPublish,
} from "../domain/manifest.ts";
import { DAY_KEY, publishedHeaders, publishPhase } from "../domain/published-files.ts";
import { contentHash } from "./content-hash.ts";
import { ConditionFailedError, type SnapshotOrigin, type WriteCondition } from "./origin.ts";
import { acquireLease, PublishConflictError } from "./publish-lease.ts";

// Publishing: the folder `picks curate` writes is the working copy; the origin (a bucket) is the truth
// that a CDN and the API servers read. Only files whose hash changed are uploaded, the days first, the
// pointer and the manifest last, so a reader never meets a pointer to a file not yet there.

export interface PublishOptions {
  /** The working copy: the folder `picks curate` writes. */
  from: SnapshotOrigin;
  to: SnapshotOrigin;
  now: () => Date;
  dryRun?: boolean;
  /** Uploads in flight at once. */
  concurrency?: number;
  /** Called after each upload with the count done and the count planned. */
  progress?: (done: number, total: number) => void;
  warn?: (message: string) => void;
}

export interface PublishResult {
  /** Keys uploaded (planned, with `dryRun`), in upload order; the manifest last when it changed. */
  uploaded: string[];
  skipped: number;
  bytes: number;
  seconds: number;
  newest_day: string | null;
  dry_run: boolean;
  /** False where the store cannot check conditional writes: concurrent publishers go undetected. */
  conditional: boolean;
}

/** The published manifest and its tag, or null when nothing was published yet; throws on a corrupt one. */
export async function readManifest(
  origin: SnapshotOrigin,
): Promise<{ manifest: Manifest; etag: string } | null> {
  // Body and tag from one answer: a tag from a separate look could belong to a newer manifest.
  const answer = await origin.readIfChanged(MANIFEST_KEY, undefined, MAX_MANIFEST_BYTES);
  if (answer === undefined || answer === "unchanged") return null;
  const manifest = parseManifest(answer.body);
  if ("problem" in manifest) {
    throw new Error(`${MANIFEST_KEY} in ${origin.describe} is ${manifest.problem}`);
  }
  return { manifest, etag: answer.etag };
}

/** Every publishable file of the working copy with its hash and size; the bytes are not kept. */
async function localFiles(from: SnapshotOrigin): Promise<Map<string, ManifestEntry>> {
  const entries = (await from.list("")).filter((entry) => publishedHeaders(entry.key) !== undefined);
  const limit = pLimit(16);
  const files = new Map<string, ManifestEntry>();
  await Promise.all(
    entries.map((entry) =>
      limit(async () => {
        const body = await from.read(entry.key);
        if (!body) return;
        files.set(entry.key, {
          sha256: contentHash(body),
          size: body.byteLength,
          modified: new Date(Math.floor(entry.modifiedMs)).toISOString(),
        });
      }),
    ),
  );
  return files;
}

/** The headers of a key `localFiles` listed, which it listed because it has them. */
const headersOf = (key: string) => publishedHeaders(key) as NonNullable<ReturnType<typeof publishedHeaders>>;

/** Uploads what changed in `from` to `to`; see the file comment for the order and the guarantees. */
export async function publishSnapshots(options: PublishOptions): Promise<PublishResult> {
  const started = performance.now();
  const warn = options.warn ?? (() => {});
  const { to } = options;
  const local = await localFiles(options.from);
  if (local.size === 0)
    throw new Error(`nothing to publish in ${options.from.describe}: run \`picks curate\` first`);
  const planNow = async () => {
    const remote = await readManifest(to);
    return { remote, plan: planPublish(local, remote?.manifest ?? null, options.now().toISOString()) };
  };
  // Planned once before the lease: an unchanged re-publish (or a dry run) writes nothing at all, not
  // even the lease. Planned again under the lease, from the manifest as it is then.
  const first = await planNow();
  const lacking = Object.keys(first.remote?.manifest.files ?? {}).filter(
    (key) => DAY_KEY.test(key) && !local.has(key),
  );
  if (lacking.length > 0 && first.plan.uploads.some((key) => publishPhase(key) === 2)) {
    // The published days stay (nothing is ever deleted), but the files derived from the folder's own
    // days would no longer list them.
    warn(
      `the folder lacks ${lacking.length} published days (${lacking
        .slice(0, 3)
        .map((key) => key.slice(9, 19))
        .join(", ")}` +
        `${lacking.length > 3 ? ", ..." : ""}): its recent.json, stats.json, feeds and indexes leave them out. ` +
        "`picks curate --publish` copies them into the folder before it builds those files",
    );
  }
  const idle = options.dryRun === true || first.plan.uploads.length === 0;
  const lease = idle
    ? { conditional: true, release: async () => {} }
    : await acquireLease(to, options.now, warn);
  try {
    const { remote, plan } = idle ? first : await planNow();
    const pointer = await to.head(POINTER_KEY);
    const uploaded = [...plan.uploads, ...(plan.manifest ? [MANIFEST_KEY] : [])];
    const bytes = plan.uploads.reduce((sum, key) => sum + (local.get(key)?.size ?? 0), 0);
    const result = (): PublishResult => ({
      uploaded,
      skipped: plan.unchanged.length,
      bytes,
      seconds: Math.round(performance.now() - started) / 1000,
      newest_day: plan.manifest?.newest_day ?? remote?.manifest.newest_day ?? null,
      dry_run: options.dryRun === true,
      conditional: lease.conditional,
    });
    if (options.dryRun || uploaded.length === 0) return result();

    const conditional = (etag: string | undefined): WriteCondition | undefined =>
      lease.conditional ? (etag ? { ifMatch: etag } : { ifNoneMatch: "*" }) : undefined;
    let done = 0;
    const put = async (key: string, condition?: WriteCondition) => {
      const file = local.get(key) as ManifestEntry;
      // Read again rather than held since hashing: ten years of days are 140 MB. A file rewritten
      // meanwhile would not be what the manifest says, so the publish stops instead.
      const body = await options.from.read(key);
      if (!body || contentHash(body) !== file.sha256) {
        throw new Error(`${key} changed in ${options.from.describe} during the publish; publish again`);
      }
      await to.write(key, body, { ...headersOf(key), sha256: file.sha256 }, condition);
      options.progress?.(++done, uploaded.length);
    };
    const limit = pLimit(options.concurrency ?? 8);
    for (const phase of phasesOf(plan.uploads.filter((key) => key !== POINTER_KEY))) {
      // Each phase completes before the next starts; a failure stops here, the pointer untouched.
      const settled = await Promise.allSettled(phase.map((key) => limit(() => put(key))));
      const failed = settled.find((outcome) => outcome.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
    }
    try {
      if (plan.uploads.includes(POINTER_KEY)) await put(POINTER_KEY, conditional(pointer?.etag));
      if (plan.manifest) {
        const body = Buffer.from(JSON.stringify(plan.manifest));
        const meta = { ...headersOf(MANIFEST_KEY), sha256: contentHash(body) };
        await to.write(MANIFEST_KEY, body, meta, conditional(remote?.etag));
        options.progress?.(++done, uploaded.length);
      }
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      throw new PublishConflictError(
        `another publisher changed ${POINTER_KEY} or ${MANIFEST_KEY} in ${to.describe} during this publish; ` +
          "they were left as that publisher wrote them",
      );
    }
    return result();
  } finally {
    // A lease left behind only delays the next publish until it expires: never hide the real outcome.
    await lease
      .release()
      .catch((error) => warn(`the publish lease was not released: ${(error as Error).message}`));
  }
}

/** Consecutive keys of one publish phase, grouped: the plan is already in phase order. */
function phasesOf(keys: readonly string[]): string[][] {
  const groups: string[][] = [];
  let last = -1;
  for (const key of keys) {
    const phase = publishPhase(key);
    if (phase !== last) groups.push([]);
    (groups.at(-1) as string[]).push(key);
    last = phase;
  }
  return groups;
}

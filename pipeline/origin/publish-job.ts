import pLimit from "p-limit";
import { type Manifest, type ManifestEntry, planPublish, type StoredObjects } from "../domain/manifest.ts";
import {
  DAY_KEY,
  MANIFEST_KEY,
  OBJECT_HEADERS,
  OBJECTS_PREFIX,
  objectKey,
  POINTER_KEY,
  type PublishPhase,
  publishedHeaders,
  publishPhase,
} from "../domain/published-files.ts";
import { contentHash } from "./content-hash.ts";
import { ConditionFailedError, type OriginDriver, type WriteCondition } from "./origin.ts";
import { headersOf, readManifest, settleAll } from "./origin-utils.ts";
import { acquireLease, type Lease, PublishConflictError } from "./publish-lease.ts";

// Publishing: the folder `picks curate` writes is the working copy; the origin (a bucket) is the truth
// that a CDN and the API servers read. Each changed file is stored twice: once as an object named by
// its SHA-256 (`v1/objects/<hash>`, never rewritten), which the servers read through the manifest, and
// once at its path, which the CDN serves. The objects go first, then the paths in phases (the days,
// the assets, the derived files, the pointer), then the manifest. A server started at any moment of
// a publish, failed or killed or not, reads the previous manifest's objects, all of them intact; a
// reader of the CDN never meets a pointer to a file not yet there.

export interface PublishOptions {
  /** The working copy: the folder `picks curate` writes. */
  from: OriginDriver;
  to: OriginDriver;
  now: () => Date;
  dryRun?: boolean;
  /** Take over another publisher's running lease (one known dead), saying whose it was. */
  breakLease?: boolean;
  /** Uploads in flight at once. */
  concurrency?: number;
  /** Called after each upload with the count done and the count planned. */
  progress?: (done: number, total: number) => void;
  warn?: (message: string) => void;
  /** Called as each phase starts (tests stop a publisher there). */
  onPhase?: (phase: "objects" | PublishPhase) => void;
}

export interface PublishResult {
  /** Paths uploaded (planned, with `dryRun`), in upload order; the manifest last when it changed. */
  uploaded: string[];
  /** Objects named by their hash uploaded (planned), the bytes of new or changed files. */
  objects: number;
  /** Keys of the previous manifest left out: the bucket held no bytes for them. */
  dropped: string[];
  skipped: number;
  bytes: number;
  seconds: number;
  newest_day: string | null;
  dry_run: boolean;
  /** False where the store cannot check conditional writes: concurrent publishers go undetected. */
  conditional: boolean;
}

/** Every publishable file of the working copy with its hash and size; the bytes are not kept. */
async function localFiles(from: OriginDriver): Promise<Map<string, ManifestEntry>> {
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

/** What the store holds: its objects, and its paths when some previous key has no object. */
async function storedObjects(to: OriginDriver, remote: Manifest | null, local: ReadonlyMap<string, unknown>) {
  const objects = new Set(
    (await to.list(OBJECTS_PREFIX)).map((entry) => entry.key.slice(OBJECTS_PREFIX.length)),
  );
  const stored: StoredObjects = { objects };
  const orphans = Object.entries(remote?.files ?? {}).some(
    ([key, entry]) => !local.has(key) && !objects.has(entry.sha256),
  );
  if (orphans) stored.paths = new Set((await to.list("")).map((entry) => entry.key));
  return stored;
}

/** The paths of `keys` grouped by phase, in publish order (the plan is already in that order). */
function phasesOf(keys: readonly string[]): Array<[PublishPhase, string[]]> {
  const groups: Array<[PublishPhase, string[]]> = [];
  for (const key of keys) {
    const phase = publishPhase(key);
    const last = groups.at(-1);
    if (last?.[0] === phase) last[1].push(key);
    else groups.push([phase, [key]]);
  }
  return groups;
}

/** Uploads what changed in `from` to `to`; see the file comment for the order and the guarantees. */
export async function publishSnapshots(options: PublishOptions): Promise<PublishResult> {
  const started = performance.now();
  const warn = options.warn ?? (() => {});
  const { to } = options;
  const local = await localFiles(options.from);
  if (local.size === 0)
    throw new Error(`nothing to publish in ${options.from.label}: run \`picks curate\` first`);
  // Planned once before the lease, from the manifest alone: an unchanged re-publish (or a dry run)
  // writes nothing at all, not even the lease. Planned again under the lease, from the store as it is.
  const first = await readManifest(to);
  const firstPlan = planPublish(local, first?.manifest ?? null, null, options.now().toISOString());
  const lacking = Object.keys(first?.manifest.files ?? {}).filter(
    (key) => DAY_KEY.test(key) && !local.has(key),
  );
  if (lacking.length > 0 && firstPlan.uploads.some((key) => publishPhase(key) === "derived")) {
    // The published days stay (nothing is ever deleted), but the files derived from the folder's own
    // days would no longer list them.
    const dates = lacking.slice(0, 3).map((key) => DAY_KEY.exec(key)?.[1]);
    warn(
      `the folder lacks ${lacking.length} published days (${dates.join(", ")}${lacking.length > 3 ? ", ..." : ""}): ` +
        "its recent.json, stats.json, feeds and indexes leave them out. " +
        "`picks curate --publish` copies them into the folder before it builds those files",
    );
  }
  const report = (plan: typeof firstPlan, remote: Manifest | null, conditional: boolean): PublishResult => ({
    uploaded: [...plan.uploads, ...(plan.manifest ? [MANIFEST_KEY] : [])],
    objects: plan.objects.size + plan.adopt.length,
    dropped: plan.dropped,
    skipped: plan.unchanged.length,
    bytes: plan.uploads.reduce((sum, key) => sum + (local.get(key)?.size ?? 0), 0),
    seconds: Math.round(performance.now() - started) / 1000,
    newest_day: plan.manifest?.newest_day ?? remote?.newest_day ?? null,
    dry_run: options.dryRun === true,
    conditional,
  });
  if (options.dryRun || firstPlan.manifest === null) return report(firstPlan, first?.manifest ?? null, true);

  const lease = await acquireLease(to, options.now, warn, { breakLease: options.breakLease === true });
  try {
    const result = await publishUnderLease(options, local, lease, report);
    await lease
      .release()
      .catch((error) => warn(`the publish lease was not released: ${(error as Error).message}`));
    return result;
  } catch (error) {
    // Marked failed rather than removed: servers' `/health` says the publish broke, and the next
    // publisher need not wait for the lease to run out.
    await lease.fail((error as Error).message);
    throw error;
  }
}

async function publishUnderLease(
  options: PublishOptions,
  local: ReadonlyMap<string, ManifestEntry>,
  lease: Lease,
  report: (
    plan: ReturnType<typeof planPublish>,
    remote: Manifest | null,
    conditional: boolean,
  ) => PublishResult,
): Promise<PublishResult> {
  const { to, from } = options;
  const warn = options.warn ?? (() => {});
  const remote = await readManifest(to);
  const stored = await storedObjects(to, remote?.manifest ?? null, local);
  const plan = planPublish(local, remote?.manifest ?? null, stored, options.now().toISOString());
  const manifest = plan.manifest;
  if (manifest === null) return report(plan, remote?.manifest ?? null, lease.conditional);
  const pointer = await to.head(POINTER_KEY);
  const total = plan.objects.size + plan.adopt.length + plan.uploads.length + 1;
  let done = 0;
  const write = async (
    key: string,
    body: Buffer,
    meta: Omit<Parameters<OriginDriver["write"]>[2], "fence">,
    condition?: WriteCondition,
  ) => {
    await lease.check();
    await to.write(key, body, { ...meta, fence: lease.token }, condition);
    options.progress?.(++done, total);
  };
  /** A file of the folder, read again rather than held since hashing: ten years of days are 140 MB. */
  const localBody = async (key: string): Promise<Buffer> => {
    const body = await from.read(key);
    if (!body || contentHash(body) !== (local.get(key) as ManifestEntry).sha256) {
      // Rewritten meanwhile: it would not be what the manifest says, so the publish stops instead.
      throw new Error(`${key} changed in ${from.label} during the publish; publish again`);
    }
    return body;
  };
  const limit = pLimit(options.concurrency ?? 8);
  const conditional = (etag: string | undefined): WriteCondition | undefined =>
    lease.conditional ? (etag ? { ifMatch: etag } : { ifNoneMatch: "*" }) : undefined;

  options.onPhase?.("objects");
  await lease.renew();
  await settleAll([
    ...[...plan.objects].map(([sha256, key]) =>
      limit(async () => write(objectKey(sha256), await localBody(key), { ...OBJECT_HEADERS, sha256 })),
    ),
    ...plan.adopt.map((key) =>
      limit(async () => {
        // A bucket published before objects were named by hash: the file's bytes at its path become its
        // object, if they are still the manifest's.
        const entry = manifest.files[key] as ManifestEntry;
        const body = await to.read(key, entry.size).catch(() => undefined);
        if (!body || contentHash(body) !== entry.sha256) {
          delete manifest.files[key];
          plan.dropped.push(key);
          warn(`${key} in ${to.label} is not the file its manifest names: left out of the new manifest`);
          return;
        }
        await write(objectKey(entry.sha256), body, { ...OBJECT_HEADERS, sha256: entry.sha256 });
      }),
    ),
  ]);
  for (const [phase, keys] of phasesOf(plan.uploads.filter((key) => key !== POINTER_KEY))) {
    // Each phase completes before the next starts; a failure stops here, the pointer untouched.
    options.onPhase?.(phase);
    await lease.renew();
    await settleAll(
      keys.map((key) =>
        limit(async () =>
          write(key, await localBody(key), {
            ...headersOf(key),
            sha256: (local.get(key) as ManifestEntry).sha256,
          }),
        ),
      ),
    );
  }
  try {
    if (plan.uploads.includes(POINTER_KEY)) {
      options.onPhase?.("pointer");
      await lease.renew();
      const sha256 = (local.get(POINTER_KEY) as ManifestEntry).sha256;
      await write(
        POINTER_KEY,
        await localBody(POINTER_KEY),
        { ...headersOf(POINTER_KEY), sha256 },
        conditional(pointer?.etag),
      );
    }
    options.onPhase?.("manifest");
    await lease.renew();
    const body = Buffer.from(JSON.stringify(manifest));
    await write(
      MANIFEST_KEY,
      body,
      { ...headersOf(MANIFEST_KEY), sha256: contentHash(body) },
      conditional(remote?.etag),
    );
  } catch (error) {
    if (!(error instanceof ConditionFailedError)) throw error;
    throw new PublishConflictError(
      `another publisher changed ${POINTER_KEY} or ${MANIFEST_KEY} in ${to.label} during this publish; ` +
        "they were left as that publisher wrote them",
    );
  }
  if (plan.dropped.length > 0) {
    warn(
      `left ${plan.dropped.length} keys out of the manifest: ${to.label} holds no bytes for them (${plan.dropped.slice(0, 3).join(", ")}${plan.dropped.length > 3 ? ", ..." : ""})`,
    );
  }
  return report(plan, remote?.manifest ?? null, lease.conditional);
}

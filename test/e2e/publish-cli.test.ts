import { createHash } from "node:crypto";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { curate } from "../../pipeline/curate.ts";
import { type Manifest, parseManifest } from "../../pipeline/domain/manifest.ts";
import { DEFAULT_SELECTION } from "../../pipeline/domain/selection.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { createFileSource } from "../../pipeline/sources/file-source.ts";
import { LISTING_PARTIAL } from "../helpers/fixtures.ts";
import { freePort } from "../helpers/local-process.ts";
import {
  type MotoServer,
  motoSkipReason,
  newBucket,
  s3Client,
  s3Env,
  startMoto,
  uniqueBucketName,
} from "../helpers/moto.ts";
import { type Finished, runPicks } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";
import { type S3Proxy, startS3Proxy } from "../helpers/s3-proxy.ts";

// `picks publish` as an operator runs it: a real process, a real S3 API (moto) behind a recording
// proxy, and a second client straight at moto that checks what the bucket holds afterwards.

const PREFIX = "site/prod";
const LEASE = "v1/publish-lease.json";
const POINTER = "v1/daily/latest.json";
const MANIFEST = "v1/manifest.json";
const OBJECTS = "v1/objects/";
const DAY = /^v1\/daily\/\d{4}-\d{2}-\d{2}\.json$/;
const NEW_DAY = "2026-11-23";
const REPO_PUBLIC = new URL("../../public/", import.meta.url).pathname;

const skip = motoSkipReason();
if (skip) console.warn(skip);

const sha256 = (body: Buffer): string => createHash("sha256").update(body).digest("hex");

/** Every file of a folder by key, with its hash and size. */
async function folderFiles(dir: string): Promise<Map<string, { sha256: string; size: number }>> {
  const files = new Map<string, { sha256: string; size: number }>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const body = await readFile(path);
    files.set(relative(dir, path).split("\\").join("/"), { sha256: sha256(body), size: body.byteLength });
  }
  return files;
}

/** The keys a publish of `dir` must upload: everything but the static host's rule files. */
async function publishable(dir: string): Promise<Map<string, { sha256: string; size: number }>> {
  const files = await folderFiles(dir);
  files.delete("_headers");
  files.delete("_redirects");
  return files;
}

/** Curates one more day (newer than the samples) into `dir`, as `picks curate` would. */
async function curateNewDay(dir: string): Promise<void> {
  const runsDir = await mkdtemp(join(tmpdir(), "picks-publish-runs-"));
  await curate({
    date: NEW_DAY,
    source: createFileSource(LISTING_PARTIAL),
    outDir: dir,
    runsDir,
    rubric: await loadRubric(),
    selection: DEFAULT_SELECTION,
    now: () => new Date("2026-11-24T06:00:00Z"),
  });
  await rm(runsDir, { recursive: true, force: true });
}

/** A loopback port with nothing listening: connections to it are refused. */
const closedPort = freePort;

describe.skipIf(skip !== null)("picks publish against an S3 API (moto)", () => {
  let moto: MotoServer;
  let proxy: S3Proxy;
  let direct: S3Client;
  let site: string;
  const temps: string[] = [];

  beforeAll(async () => {
    moto = await startMoto();
    proxy = await startS3Proxy(moto.endpoint);
    direct = s3Client(moto.endpoint);
    const { publicDir, runsDir } = await publishSampleDays();
    await rm(runsDir, { recursive: true, force: true });
    await cp(join(REPO_PUBLIC, "index.html"), join(publicDir, "index.html"));
    await cp(join(REPO_PUBLIC, "assets"), join(publicDir, "assets"), { recursive: true });
    await cp(join(REPO_PUBLIC, "_headers"), join(publicDir, "_headers"));
    await cp(join(REPO_PUBLIC, "_redirects"), join(publicDir, "_redirects"));
    site = publicDir;
    temps.push(join(publicDir, ".."));
  });

  afterAll(async () => {
    direct?.destroy();
    await proxy?.close();
    await moto?.stop();
    await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** A copy of the sample site that a case may change. */
  async function siteCopy(): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), "picks-publish-"));
    temps.push(root);
    const dir = join(root, "public");
    await cp(site, dir, { recursive: true });
    return dir;
  }

  const newPublishBucket = () => newBucket(moto.endpoint, "publish");

  function env(endpoint: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
    const merged: NodeJS.ProcessEnv = { ...process.env, ...s3Env(endpoint) };
    // Nothing of the caller's own setup may leak in: no Redis hint, no default target, no profile.
    for (const name of ["REDIS_URL", "PUBLISH_URL", "AWS_SESSION_TOKEN", "AWS_PROFILE", "DEBUG"]) {
      delete merged[name];
    }
    for (const [name, value] of Object.entries(extra)) {
      if (value === undefined) delete merged[name];
      else merged[name] = value;
    }
    return merged;
  }

  function publish(
    bucket: string,
    from: string,
    args: string[] = [],
    extra: Record<string, string | undefined> = {},
    endpoint = proxy.endpoint,
  ): Promise<Finished> {
    return runPicks(
      ["publish", "--to", `s3://${bucket}/${PREFIX}`, "--from", from, ...args],
      env(endpoint, extra),
    );
  }

  async function publishOk(bucket: string, from: string, args: string[] = []): Promise<Finished> {
    const result = await publish(bucket, from, args);
    expect(result.code, result.stderr).toBe(0);
    return result;
  }

  /** The keys the proxy saw written to `bucket`, in order, the lease left out. */
  function putAll(bucket: string): string[] {
    const base = `/${bucket}/${PREFIX}/`;
    return proxy
      .puts()
      .map((path) => (path.startsWith(base) ? path.slice(base.length) : path))
      .filter((key) => key !== LEASE);
  }

  /** The published paths the proxy saw written, in order: neither the lease nor the objects. */
  const putKeys = (bucket: string): string[] => putAll(bucket).filter((key) => !key.startsWith(OBJECTS));

  async function head(bucket: string, key: string) {
    return direct.send(new HeadObjectCommand({ Bucket: bucket, Key: `${PREFIX}/${key}` }));
  }

  async function bytes(bucket: string, key: string): Promise<Buffer | undefined> {
    try {
      const answer = await direct.send(new GetObjectCommand({ Bucket: bucket, Key: `${PREFIX}/${key}` }));
      return Buffer.from(
        await (answer.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
      );
    } catch (error) {
      if ((error as Error).name === "NoSuchKey") return undefined;
      throw error;
    }
  }

  async function putDirect(bucket: string, key: string, body: string): Promise<void> {
    await direct.send(new PutObjectCommand({ Bucket: bucket, Key: `${PREFIX}/${key}`, Body: body }));
  }

  async function storedKeys(bucket: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await direct.send(
        new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async function manifestOf(bucket: string): Promise<Manifest> {
    const body = await bytes(bucket, MANIFEST);
    if (!body) throw new Error(`no ${MANIFEST} in ${bucket}`);
    const manifest = parseManifest(body);
    if ("problem" in manifest) throw new Error(`${MANIFEST} in ${bucket} is ${manifest.problem}`);
    return manifest;
  }

  /** The manifest names exactly `files`, each with its hash and size. */
  async function expectManifestOf(bucket: string, dir: string): Promise<void> {
    const local = await publishable(dir);
    const manifest = await manifestOf(bucket);
    expect(Object.keys(manifest.files).sort()).toEqual([...local.keys()].sort());
    for (const [key, file] of local) {
      expect(manifest.files[key], key).toMatchObject({ sha256: file.sha256, size: file.size });
    }
  }

  it("uploads every file with its type, caching and hash, and a manifest of them all", {
    timeout: 60_000,
  }, async () => {
    const bucket = await newPublishBucket();
    const result = await publishOk(bucket, site, ["--json"]);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    const local = await publishable(site);
    expect(report).toMatchObject({
      to: `s3://${bucket}/${PREFIX}`,
      uploaded: local.size + 1,
      skipped: 0,
      newest_day: "2026-11-20",
      dry_run: false,
      conditional_writes: true,
    });

    const expected: Array<[key: string, type: string, cache: string]> = [
      ["v1/daily/2026-11-19.json", "application/json", "public, max-age=3600"],
      // Every candidate of the day, dated and cached like the day it belongs to.
      ["v1/screened/2026-11-19.json", "application/json", "public, max-age=3600"],
      [POINTER, "application/json", "public, max-age=300"],
      ["v1/recent.json", "application/json", "public, max-age=300"],
      ["feed.xml", "application/atom+xml; charset=utf-8", "public, max-age=300"],
      ["feed.json", "application/feed+json", "public, max-age=300"],
      ["index.html", "text/html; charset=utf-8", "no-cache"],
      ["assets/app.js", "text/javascript; charset=utf-8", "no-cache"],
      ["assets/style.css", "text/css; charset=utf-8", "no-cache"],
      ["assets/icon.svg", "image/svg+xml", "no-cache"],
    ];
    for (const [key, type, cache] of expected) {
      const file = local.get(key);
      expect(file, `${key} in the sample site`).toBeDefined();
      const stored = await head(bucket, key);
      expect(stored.ContentType, key).toBe(type);
      expect(stored.CacheControl, key).toBe(cache);
      expect(stored.ContentLength, key).toBe(file?.size);
      expect(stored.Metadata?.sha256, key).toBe(file?.sha256);
    }

    await expectManifestOf(bucket, site);
    const manifest = await manifestOf(bucket);
    expect(manifest.newest_day).toBe("2026-11-20");
    const stored = await storedKeys(bucket);
    expect(stored.filter((key) => !key.startsWith(`${PREFIX}/${OBJECTS}`))).toEqual(
      [...[...local.keys()].map((key) => `${PREFIX}/${key}`), `${PREFIX}/${MANIFEST}`].sort(),
    );
    // Each file's bytes once more, under their hash: what servers read.
    const hashes = new Set([...local.values()].map((file) => file.sha256));
    expect(stored.filter((key) => key.startsWith(`${PREFIX}/${OBJECTS}`)).sort()).toEqual(
      [...hashes].map((hash) => `${PREFIX}/${OBJECTS}${hash}`).sort(),
    );
    expect(report.objects).toBe(hashes.size);
    for (const [key, file] of local) {
      expect(sha256((await bytes(bucket, `${OBJECTS}${file.sha256}`)) as Buffer), key).toBe(file.sha256);
    }
    expect(stored).not.toContain(`${PREFIX}/_headers`);
    expect(stored).not.toContain(`${PREFIX}/_redirects`);
    expect(stored).not.toContain(`${PREFIX}/${LEASE}`);
  });

  it("re-publishes an unchanged folder without writing a file", { timeout: 60_000 }, async () => {
    const bucket = await newPublishBucket();
    await publishOk(bucket, site);
    const manifestBefore = await bytes(bucket, MANIFEST);
    proxy.reset();
    const result = await publishOk(bucket, site, ["--json"]);
    const report = JSON.parse(result.stdout) as { uploaded: number; skipped: number; files: string[] };
    expect(report.uploaded).toBe(0);
    expect(report.files).toEqual([]);
    expect(report.skipped).toBe((await publishable(site)).size);
    // Not even the lease: the plan is made before it is taken, and an empty plan takes none.
    expect(proxy.puts()).toEqual([]);
    expect(proxy.counts().PUT ?? 0).toBe(0);
    expect(await bytes(bucket, MANIFEST)).toEqual(manifestBefore);
  });

  it("uploads the objects first, then the days, the pointer second to last and the manifest last", {
    timeout: 60_000,
  }, async () => {
    const bucket = await newPublishBucket();
    proxy.reset();
    await publishOk(bucket, site);
    const all = putAll(bucket);
    const objects = all.filter((key) => key.startsWith(OBJECTS));
    expect(objects.length).toBeGreaterThan(0);
    expect(all.slice(0, objects.length)).toEqual(objects);
    const keys = putKeys(bucket);
    const local = await publishable(site);
    expect([...keys].sort()).toEqual([...local.keys(), MANIFEST].sort());
    // The days phase: the dated days and their screened files, uploaded together in any order.
    const dated = (key: string) => DAY.test(key) || key.startsWith("v1/screened/");
    const days = [...local.keys()].filter(dated);
    expect(days.filter((key) => DAY.test(key)).length).toBe(3);
    expect(keys.slice(0, days.length).sort()).toEqual(days.sort());
    expect(keys.slice(days.length).some(dated)).toBe(false);
    expect(keys.at(-2)).toBe(POINTER);
    expect(keys.at(-1)).toBe(MANIFEST);
    // The lease is taken before any file and given back after.
    expect(proxy.puts()[0]).toBe(`/${bucket}/${PREFIX}/${LEASE}`);
    expect(await storedKeys(bucket)).not.toContain(`${PREFIX}/${LEASE}`);
  });

  it("warns when the folder lacks published days, and still erases none of them", {
    timeout: 60_000,
  }, async () => {
    const bucket = await newPublishBucket();
    await publishOk(bucket, site);
    const partial = await siteCopy();
    const days = (await readdir(join(partial, "v1", "daily")))
      .filter((name) => name !== "latest.json")
      .sort();
    for (const name of days.slice(0, 2)) await rm(join(partial, "v1", "daily", name));
    // A file derived from the days changes, so the partial folder has something to publish.
    await cp(join(partial, "v1", "stats.json"), join(partial, "v1", "recent.json"));
    const result = await publishOk(bucket, partial);
    expect(result.stderr).toMatch(
      /the folder lacks 2 published days \(\d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2}\)/,
    );
    expect(result.stderr).toContain("picks curate --publish");
    const manifest = await manifestOf(bucket);
    for (const name of days) expect(Object.keys(manifest.files)).toContain(`v1/daily/${name}`);
  });

  it("uploads only what a new day changed, then the manifest", { timeout: 60_000 }, async () => {
    const bucket = await newPublishBucket();
    const dir = await siteCopy();
    await publishOk(bucket, dir);
    const before = await publishable(dir);
    await curateNewDay(dir);
    const after = await publishable(dir);
    const changed = [...after]
      .filter(([key, file]) => before.get(key)?.sha256 !== file.sha256)
      .map(([key]) => key);
    expect(changed).toContain(`v1/daily/${NEW_DAY}.json`);
    expect(changed).toContain(POINTER);
    expect(changed).not.toContain("index.html");

    proxy.reset();
    const result = await publishOk(bucket, dir, ["--json"]);
    const report = JSON.parse(result.stdout) as { uploaded: number; skipped: number; newest_day: string };
    expect(report).toMatchObject({
      uploaded: changed.length + 1,
      skipped: after.size - changed.length,
      newest_day: NEW_DAY,
    });
    const keys = putKeys(bucket);
    expect([...keys].sort()).toEqual([...changed, MANIFEST].sort());
    // Only the new hashes as objects: every other file's object is already there.
    const fresh = new Set(changed.map((key) => after.get(key)?.sha256));
    expect(
      putAll(bucket)
        .filter((key) => key.startsWith(OBJECTS))
        .sort(),
    ).toEqual([...fresh].map((hash) => `${OBJECTS}${hash}`).sort());
    // The new day's two files share the days phase, uploaded side by side: either may land first.
    expect([`v1/daily/${NEW_DAY}.json`, `v1/screened/${NEW_DAY}.json`]).toContain(keys[0]);
    expect(keys.slice(-2)).toEqual([POINTER, MANIFEST]);
    await expectManifestOf(bucket, dir);
    expect((await manifestOf(bucket)).newest_day).toBe(NEW_DAY);
  });

  it("leaves the pointer and manifest as they were when the store refuses an upload", {
    timeout: 60_000,
  }, async () => {
    const bucket = await newPublishBucket();
    const dir = await siteCopy();
    await publishOk(bucket, dir);
    const pointerBefore = await bytes(bucket, POINTER);
    const manifestBefore = await bytes(bucket, MANIFEST);
    await curateNewDay(dir);

    proxy.reset();
    proxy.failPut(5, 403);
    const failed = await publish(bucket, dir);
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toContain(bucket);
    expect(failed.stderr).toMatch(/403/);
    expect(proxy.counts().PUT).toBeGreaterThanOrEqual(5);
    expect(putKeys(bucket)).not.toContain(POINTER);
    expect(putKeys(bucket)).not.toContain(MANIFEST);
    expect(await bytes(bucket, POINTER)).toEqual(pointerBefore);
    expect(await bytes(bucket, MANIFEST)).toEqual(manifestBefore);
    // The lease is left marked failed, expired at once: servers say so, the next publish takes it.
    const lease = JSON.parse((await bytes(bucket, LEASE))?.toString() ?? "{}");
    expect(lease.failed.reason).toMatch(/403/);
    expect(Date.parse(lease.expires_at)).toBeLessThanOrEqual(Date.now());

    await publishOk(bucket, dir);
    expect(await storedKeys(bucket)).not.toContain(`${PREFIX}/${LEASE}`);
    await expectManifestOf(bucket, dir);
    expect(await bytes(bucket, POINTER)).toEqual(await readFile(join(dir, POINTER)));
  });

  describe("one publisher at a time", () => {
    it("lets one of two racing publishers win and stops the other", { timeout: 60_000 }, async () => {
      const bucket = await newPublishBucket();
      const dir = await siteCopy();
      await publishOk(bucket, dir);
      await curateNewDay(dir);

      // A slow store keeps the first publisher at work for seconds, longer than the two processes'
      // difference in start-up: the second meets the lease, not a finished publish.
      proxy.reset();
      proxy.delayPuts(400);
      const results = await Promise.all([publish(bucket, dir), publish(bucket, dir)]).finally(() =>
        proxy.reset(),
      );
      const codes = results.map((result) => result.code).sort();
      expect(codes, results.map((result) => result.stderr).join("\n")).toEqual([0, 1]);
      const loser = results.find((result) => result.code === 1) as Finished;
      expect(loser.stderr).toMatch(/another publish(er)? .*(is in progress|started just now|changed)/);
      expect(loser.stderr).toContain(`s3://${bucket}/${PREFIX}`);

      const manifest = await manifestOf(bucket);
      expect(manifest.newest_day).toBe(NEW_DAY);
      for (const [key, entry] of Object.entries(manifest.files)) {
        const body = await bytes(bucket, key);
        expect(body, key).toBeDefined();
        expect(sha256(body as Buffer), key).toBe(entry.sha256);
        expect((await head(bucket, key)).Metadata?.sha256, key).toBe(entry.sha256);
      }
      await expectManifestOf(bucket, dir);
      expect(await storedKeys(bucket)).not.toContain(`${PREFIX}/${LEASE}`);
    });

    it("stops before writing anything while another publisher's lease runs", {
      timeout: 60_000,
    }, async () => {
      const bucket = await newPublishBucket();
      const dir = await siteCopy();
      await publishOk(bucket, dir);
      await curateNewDay(dir);
      const lease = JSON.stringify({
        holder: "other",
        expires_at: new Date(Date.now() + 60_000).toISOString(),
      });
      await putDirect(bucket, LEASE, lease);
      const manifestBefore = await bytes(bucket, MANIFEST);

      proxy.reset();
      const result = await publish(bucket, dir);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/another publish to .* is in progress .*nothing was written/);
      expect(putKeys(bucket)).toEqual([]);
      expect(proxy.counts().DELETE ?? 0).toBe(0);
      expect(await bytes(bucket, MANIFEST)).toEqual(manifestBefore);
      expect((await bytes(bucket, LEASE))?.toString()).toBe(lease);
    });

    it("takes over the lease a dead publisher left behind", { timeout: 60_000 }, async () => {
      const bucket = await newPublishBucket();
      const dir = await siteCopy();
      await publishOk(bucket, dir);
      await curateNewDay(dir);
      await putDirect(
        bucket,
        LEASE,
        JSON.stringify({ holder: "dead", expires_at: "2026-01-01T00:00:00.000Z" }),
      );

      await publishOk(bucket, dir);
      await expectManifestOf(bucket, dir);
      expect(await storedKeys(bucket)).not.toContain(`${PREFIX}/${LEASE}`);
    });
  });

  describe("refusals", () => {
    it("exits 2 on a target that is not s3://bucket[/prefix]", async () => {
      for (const to of ["s3://X", "https://x", "s3://", "picks/prod"]) {
        const result = await runPicks(["publish", "--to", to, "--from", site], env(proxy.endpoint));
        expect(result.code, `${to}: ${result.stderr}`).toBe(2);
        expect(result.stderr, to).toContain("s3://bucket[/prefix]");
        expect(result.stderr, to).toContain(to);
      }
    });

    it("exits 2 on a URL holding credentials or a query, and never prints them", async () => {
      const secret = "wJalrXUtnFEMI-K7MDENG";
      proxy.reset();
      const cases: Array<[string[], Record<string, string | undefined>]> = [
        [["--to", `s3://AKIAEXAMPLE:${secret}@picks/x`], {}],
        [["--to", `s3://picks/x?X-Amz-Signature=${secret}`], {}],
        [[], { PUBLISH_URL: `s3://AKIAEXAMPLE:${secret}@picks/x` }],
      ];
      for (const [args, extra] of cases) {
        const result = await runPicks(["publish", ...args, "--from", site], env(proxy.endpoint, extra));
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toContain("holds no user info, query or fragment");
        expect(result.stdout + result.stderr).not.toContain(secret);
        expect(result.stdout + result.stderr).not.toContain("AKIAEXAMPLE");
      }
      const served = await runPicks(
        ["serve", "--port", "0", "--snapshots", `s3://AKIAEXAMPLE:${secret}@picks/x`],
        env(proxy.endpoint),
      );
      expect(served.code, served.stderr).toBe(2);
      expect(served.stdout + served.stderr).not.toContain(secret);
      expect(proxy.counts()).toEqual({});
    });

    it("exits 2 naming the variable when the secret key is missing", async () => {
      const bucket = await newPublishBucket();
      proxy.reset();
      const result = await publish(bucket, site, [], { AWS_SECRET_ACCESS_KEY: undefined });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain("AWS_SECRET_ACCESS_KEY");
      expect(result.stderr).not.toContain("AWS_ACCESS_KEY_ID");
      expect(proxy.counts()).toEqual({});
    });

    it("exits 1 naming the bucket and endpoint when the bucket does not exist", async () => {
      const missing = uniqueBucketName("missing");
      const result = await publish(missing, site);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`bucket ${missing} does not exist at ${proxy.endpoint}`);
    });

    it("exits 1 naming the bucket and the permissions on a 403, and never prints the secret", async () => {
      const bucket = await newPublishBucket();
      const secret = "Sekr3t-publish-key-4f9c2a7e";
      proxy.reset();
      proxy.failPut(1, 403);
      const result = await publish(bucket, site, [], { AWS_SECRET_ACCESS_KEY: secret });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`s3://${bucket}/${PREFIX}`);
      for (const permission of ["PutObject", "GetObject", "ListBucket"]) {
        expect(result.stderr).toContain(permission);
      }
      expect(result.stdout + result.stderr).not.toContain(secret);
      expect(proxy.puts()).toEqual([`/${bucket}/${PREFIX}/${LEASE}`]);
      expect(await storedKeys(bucket)).toEqual([]);
    });

    it("exits 1 within 15 s when the endpoint refuses connections", async () => {
      const port = await closedPort();
      const endpoint = `http://127.0.0.1:${port}`;
      const started = performance.now();
      const result = await publish("nowhere-bucket", site, [], {}, endpoint);
      const seconds = (performance.now() - started) / 1000;
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(endpoint);
      expect(seconds).toBeLessThan(15);
    });

    it("uploads nothing on --dry-run and lists what it would upload", async () => {
      const bucket = await newPublishBucket();
      proxy.reset();
      const result = await publishOk(bucket, site, ["--dry-run"]);
      expect(proxy.counts().PUT ?? 0).toBe(0);
      expect(proxy.counts().DELETE ?? 0).toBe(0);
      expect(result.stdout).toContain("would upload");
      const listed = result.stdout
        .split("\n")
        .filter((line) => line.startsWith("  "))
        .map((line) => line.trim());
      const local = await publishable(site);
      expect([...listed].sort()).toEqual([...local.keys(), MANIFEST].sort());
      expect(await storedKeys(bucket)).toEqual([]);
    });
  });
});

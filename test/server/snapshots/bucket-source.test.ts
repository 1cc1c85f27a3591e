import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OBJECTS_PREFIX } from "../../../pipeline/domain/published-files.ts";
import { createFolderOrigin } from "../../../pipeline/origin/folder-origin.ts";
import type { OriginDriver } from "../../../pipeline/origin/origin.ts";
import { publishSnapshots } from "../../../pipeline/origin/publish-job.ts";
import { createBucketSource } from "../../../server/snapshots/bucket-source.ts";
import {
  createSnapshotCache,
  DayUnavailableError,
  type SnapshotCache,
} from "../../../server/snapshots/snapshot-cache.ts";
import { runPicks } from "../../helpers/processes.ts";
import { curateListingArgs, publishSampleDays } from "../../helpers/published.ts";
import { waitFor } from "../submissions/helpers.ts";

// The bucket source over the folder driver (the same origin contract as a bucket's), where a read can
// be made to fail on cue: what a server does when a reload meets a store that misbehaves.

const NEW_DAY = "2026-11-23";

let root: string;
let site: string;
let bucketDir: string;
let cache: SnapshotCache | undefined;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "picks-bucket-source-"));
  site = join(root, "site");
  bucketDir = join(root, "bucket");
  await cp((await publishSampleDays()).publicDir, site, { recursive: true });
  await publish();
});
afterEach(async () => {
  cache?.close();
  await rm(root, { recursive: true, force: true });
});

const publish = () =>
  publishSnapshots({
    from: createFolderOrigin({ dir: site }),
    to: createFolderOrigin({ dir: bucketDir }),
    now: () => new Date(),
  });

async function curateNewDay() {
  const done = await runPicks(curateListingArgs(site, join(root, "runs"), NEW_DAY));
  expect(done.code, done.stderr).toBe(0);
}

async function serveFrom(origin: OriginDriver) {
  const source = createBucketSource({ origin, url: "s3://test/site", pollSeconds: 0.1, log: () => {} });
  cache = await createSnapshotCache({ source, watch: true });
  return cache;
}

describe("a bucket source", () => {
  // Regression: the new manifest's tag was kept though its files failed to load, so every later poll
  // answered "unchanged" and the day never appeared until the next publish.
  it("loads a day again after a reload that failed on a read", async () => {
    const folder = createFolderOrigin({ dir: bucketDir });
    let failures = 0;
    const flaky: OriginDriver = {
      ...folder,
      async read(key, maxBytes) {
        if (key.startsWith(OBJECTS_PREFIX) && failures > 0) {
          failures -= 1;
          throw new Error("503 SlowDown");
        }
        return folder.read(key, maxBytes);
      },
    };
    const served = await serveFrom(flaky);
    await curateNewDay();
    failures = 1;
    await publish();
    await waitFor(
      async () => served.latestDate() === NEW_DAY || null,
      5_000,
      "the new day after a failed reload",
    );
    expect(failures).toBe(0);
    expect(served.origin().problem).toBeNull();
  });

  it("logs a poll failure once when polls start failing, and once when they work again", async () => {
    const folder = createFolderOrigin({ dir: bucketDir });
    let down = false;
    const flaky: OriginDriver = {
      ...folder,
      async readIfChanged(key, etag, maxBytes) {
        if (down) throw new Error("cannot reach the endpoint: ECONNREFUSED");
        return folder.readIfChanged(key, etag, maxBytes);
      },
    };
    const logged: string[] = [];
    const source = createBucketSource({
      origin: flaky,
      url: "s3://test/site",
      pollSeconds: 3600,
      log: (line) => logged.push(line),
    });
    cache = await createSnapshotCache({ source, watch: true });
    down = true;
    for (let poll = 0; poll < 5; poll++) await source.poll();
    expect(cache.origin().problem).toMatch(/ECONNREFUSED/);
    down = false;
    for (let poll = 0; poll < 3; poll++) await source.poll();
    expect(logged).toEqual([
      "snapshots: cannot reach the endpoint: ECONNREFUSED; serving the last good set",
      "snapshots: s3://test/site is read again",
    ]);
  });

  /** The object a published key is read from, by the manifest's hash. */
  async function objectOf(key: string): Promise<string> {
    const manifest = JSON.parse(await readFile(join(bucketDir, "v1", "manifest.json"), "utf8"));
    return join(bucketDir, "v1", "objects", manifest.files[key].sha256);
  }

  it("refuses a day whose object differs from the manifest's hash, serves the rest, and takes it once it matches", async () => {
    const source = createBucketSource({
      origin: createFolderOrigin({ dir: bucketDir }),
      url: "s3://test/site",
      pollSeconds: 3600,
      log: () => {},
    });
    cache = await createSnapshotCache({ source, watch: true });
    const before = cache.latestDate();
    await curateNewDay();
    await publish();
    // The day's object replaced in the bucket before the server reads it (a hand edit, a bad copy).
    const day = await objectOf(`v1/daily/${NEW_DAY}.json`);
    const good = await readFile(day);
    await writeFile(day, Buffer.concat([good, Buffer.from(" ")]));
    await source.poll();
    // Listed from the picks index, which matches its hash; the day's own file is refused.
    expect(cache.lookup(`/v1/daily/${NEW_DAY}`)).toBeUndefined();
    await expect(cache.read(`/v1/daily/${NEW_DAY}`)).rejects.toThrow(DayUnavailableError);
    expect(cache.lookup(`/v1/daily/${before}`)).toBeDefined();
    // latest.json holds the same bytes as the day: one object, both refused.
    expect(
      cache
        .origin()
        .refused.map((refused) => refused.file)
        .sort(),
    ).toEqual([`v1/daily/${NEW_DAY}.json`, "v1/daily/latest.json"]);
    expect(cache.origin().refused[0]?.reason).toMatch(/larger than the \d+ bytes the manifest gives/);
    expect(cache.origin().problem).toBeNull();
    await writeFile(day, good);
    await source.poll();
    expect(cache.lookup(`/v1/daily/${NEW_DAY}`)).toBeDefined();
    expect(cache.origin().refused).toEqual([]);
  });

  it("starts on a file that differs from the manifest's hash, without it, and names it", async () => {
    await writeFile(await objectOf("v1/recent.json"), "{}");
    const served = await serveFrom(createFolderOrigin({ dir: bucketDir }));
    expect(served.lookup("/v1/recent")).toBeUndefined();
    expect(served.lookup("/v1/daily/2026-11-20")).toBeDefined();
    expect(served.origin().refused).toEqual([
      { file: "v1/recent.json", reason: "v1/recent.json does not match its hash in the manifest" },
    ]);
  });
});

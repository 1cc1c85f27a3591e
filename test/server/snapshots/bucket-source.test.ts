import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFolderOrigin } from "../../../pipeline/origin/folder-origin.ts";
import type { SnapshotOrigin } from "../../../pipeline/origin/origin.ts";
import { publishSnapshots } from "../../../pipeline/origin/publish-job.ts";
import { createBucketSource } from "../../../server/snapshots/bucket-source.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
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

async function serveFrom(origin: SnapshotOrigin) {
  const source = createBucketSource({ origin, url: "s3://test/site", pollSeconds: 0.1, log: () => {} });
  cache = await createSnapshotCache({ source, watch: true });
  return cache;
}

describe("a bucket source", () => {
  // Regression: the new manifest's tag was kept though its files failed to load, so every later poll
  // answered "unchanged" and the day never appeared until the next publish.
  it("loads a day again after a reload that failed on a read", async () => {
    const folder = createFolderOrigin({ dir: bucketDir });
    let failures = 1;
    const flaky: SnapshotOrigin = {
      ...folder,
      async read(key) {
        if (key === `v1/daily/${NEW_DAY}.json` && failures > 0) {
          failures -= 1;
          throw new Error("503 SlowDown");
        }
        return folder.read(key);
      },
    };
    const served = await serveFrom(flaky);
    await curateNewDay();
    await publish();
    await waitFor(
      async () => served.latestDate() === NEW_DAY || null,
      5_000,
      "the new day after a failed reload",
    );
    expect(failures).toBe(0);
    expect(served.origin().problem).toBeNull();
  });

  it("refuses bytes that differ from the manifest's hash, keeps the last good set, and takes the day once they match", async () => {
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
    // The day replaced in the bucket before the server reads it (a publish still under way, a hand edit).
    const day = join(bucketDir, "v1", "daily", `${NEW_DAY}.json`);
    const good = await readFile(day);
    await writeFile(day, Buffer.concat([good, Buffer.from(" ")]));
    await source.poll();
    expect(cache.latestDate()).toBe(before);
    expect(cache.origin().problem).toMatch(/does not match its hash in the manifest/);
    await writeFile(day, good);
    await source.poll();
    expect(cache.latestDate()).toBe(NEW_DAY);
    expect(cache.origin().problem).toBeNull();
  });

  it("refuses to start on a file that differs from the manifest's hash", async () => {
    await writeFile(join(bucketDir, "v1", "recent.json"), "{}");
    await expect(serveFrom(createFolderOrigin({ dir: bucketDir }))).rejects.toThrow(
      /v1\/recent\.json does not match/,
    );
  });
});

import pLimit from "p-limit";
import { DAY_KEY, publishedHeaders } from "../domain/published-files.ts";
import { contentHash } from "./content-hash.ts";
import type { SnapshotOrigin } from "./origin.ts";
import { readManifest } from "./publish-job.ts";

/**
 * Copies into the working copy the published days it lacks, so that a curate on a new machine (or a
 * fresh folder) builds recent.json, stats.json, the feeds and the indexes from the whole published
 * history, not from its own days alone. Days the folder has are left as they are: it may hold a newer
 * run not yet published. Each copied day is checked against the manifest's hash.
 */
export async function pullMissingDays(bucket: SnapshotOrigin, folder: SnapshotOrigin): Promise<string[]> {
  const remote = await readManifest(bucket);
  if (!remote) return [];
  const local = new Set((await folder.list("v1/daily/")).map((entry) => entry.key));
  const missing = Object.keys(remote.manifest.files).filter((key) => DAY_KEY.test(key) && !local.has(key));
  const limit = pLimit(8);
  // Every copy settles before the first failure is thrown: none is left writing after the caller
  // closed the bucket.
  const copied = await Promise.allSettled(
    missing.map((key) =>
      limit(async () => {
        const body = await bucket.read(key);
        const sha256 = body ? contentHash(body) : "";
        if (!body || sha256 !== remote.manifest.files[key]?.sha256) {
          throw new Error(
            `${key} in ${bucket.describe} does not match its manifest entry; nothing was curated`,
          );
        }
        const headers = publishedHeaders(key) as NonNullable<ReturnType<typeof publishedHeaders>>;
        await folder.write(key, body, { ...headers, sha256 });
      }),
    ),
  );
  const failed = copied.find((outcome) => outcome.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return missing.sort();
}

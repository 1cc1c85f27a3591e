import pLimit from "p-limit";
import { DAY_KEY } from "../domain/published-files.ts";
import type { OriginDriver } from "./origin.ts";
import { headersOf, readManifest, readNamed, settleAll } from "./origin-utils.ts";

/**
 * Copies into the working copy the published days it lacks, so that a curate on a new machine (or a
 * fresh folder) builds recent.json, stats.json, the feeds and the indexes from the whole published
 * history, not from its own days alone. Days the folder has are left as they are: it may hold a newer
 * run not yet published. Each copied day is read by the manifest's hash and checked against it.
 */
export async function pullMissingDays(bucket: OriginDriver, folder: OriginDriver): Promise<string[]> {
  const remote = await readManifest(bucket);
  if (!remote) return [];
  const { manifest } = remote;
  const local = new Set((await folder.list("v1/daily/")).map((entry) => entry.key));
  const missing = Object.keys(manifest.files).filter((key) => DAY_KEY.test(key) && !local.has(key));
  const limit = pLimit(8);
  await settleAll(
    missing.map((key) =>
      limit(async () => {
        const entry = manifest.files[key];
        const body = entry ? await readNamed(bucket, manifest, key, entry).catch(() => undefined) : undefined;
        if (!body || !entry) {
          throw new Error(`${key} in ${bucket.label} does not match its manifest entry; nothing was curated`);
        }
        await folder.write(key, body, { ...headersOf(key), sha256: entry.sha256 });
      }),
    ),
  );
  return missing.sort();
}

import { createFolderOrigin } from "./folder-origin.ts";
import { type BucketTarget, openBucket } from "./open-origin.ts";
import { sendPublishHint } from "./publish-hint.ts";
import { type PublishResult, publishSnapshots } from "./publish-job.ts";
import { pullMissingDays } from "./pull-days.ts";

// The two moves between a working folder and its bucket that every command makes the same way:
// publish what changed (and hint the servers), and fill the folder with the history it lacks.

export interface FolderPublish extends PublishResult {
  /** The bucket as messages name it: `s3://bucket/prefix at ENDPOINT`. */
  where: string;
}

/**
 * Publishes the folder `dir` to the bucket and, with `redisUrl` and anything uploaded, hints the
 * servers to poll at once. Throws when the bucket refuses: the pointer and manifest are then as before.
 */
export async function publishFolderTo(
  target: BucketTarget,
  dir: string,
  options: {
    dryRun?: boolean;
    breakLease?: boolean;
    redisUrl?: string | undefined;
    warn: (message: string) => void;
    progress?: (done: number, total: number) => void;
  },
): Promise<FolderPublish> {
  const to = await openBucket(target);
  try {
    const result = await publishSnapshots({
      from: createFolderOrigin({ dir }),
      to,
      now: () => new Date(),
      dryRun: options.dryRun === true,
      breakLease: options.breakLease === true,
      warn: options.warn,
      ...(options.progress ? { progress: options.progress } : {}),
    });
    if (options.redisUrl && !result.dry_run && result.uploaded.length > 0) {
      await sendPublishHint(options.redisUrl, result.newest_day, options.warn);
    }
    return { ...result, where: to.label };
  } finally {
    to.close();
  }
}

/** Copies into `dir` the bucket's published days it lacks (see pull-days.ts); the keys copied. */
export async function pullFolderFrom(
  target: BucketTarget,
  dir: string,
): Promise<{ where: string; pulled: string[] }> {
  const bucket = await openBucket(target);
  try {
    return { where: bucket.label, pulled: await pullMissingDays(bucket, createFolderOrigin({ dir })) };
  } finally {
    bucket.close();
  }
}

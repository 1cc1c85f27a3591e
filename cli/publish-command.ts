import type { Command } from "commander";
import { bucketUrl, ORIGIN_URL_FORM } from "../pipeline/domain/origin-url.ts";
import { type BucketTarget, createFolderOrigin, openBucket } from "../pipeline/origin/open-origin.ts";
import { sendPublishHint } from "../pipeline/origin/publish-hint.ts";
import { type PublishResult, publishSnapshots } from "../pipeline/origin/publish-job.ts";
import { pullMissingDays } from "../pipeline/origin/pull-days.ts";
import { bucketTargetFrom } from "./bucket-option.ts";
import { createOutput, type Output } from "./output.ts";
import { DEFAULT_PUBLIC_DIR } from "./paths.ts";

interface PublishFlags {
  to?: string;
  from: string;
  dryRun: boolean;
  json: boolean;
}

const kilobytes = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * Publishes the folder `from` to the bucket, prints what it did, and hints the servers on Redis when
 * a day changed. Throws (exit 1) when the bucket refuses: the pointer and manifest are then as before.
 */
export async function publishFolder(options: {
  target: BucketTarget;
  from: string;
  out: Output;
  dryRun?: boolean;
  env?: NodeJS.ProcessEnv;
}): Promise<PublishResult> {
  const { out } = options;
  const env = options.env ?? process.env;
  const warn = (message: string) => process.stderr.write(`picks: warning: ${message}\n`);
  const to = await openBucket(options.target);
  const from = createFolderOrigin({ dir: options.from });
  try {
    const result = await publishSnapshots({
      from,
      to,
      now: () => new Date(),
      dryRun: options.dryRun === true,
      warn,
      progress: (done, total) => out.progress(`publish: ${done}/${total} uploaded`),
    });
    const verb = result.dry_run ? "would upload" : "uploaded";
    out.line(
      `${to.describe}: ${verb} ${result.uploaded.length} files (${kilobytes(result.bytes)}), ` +
        `${result.skipped} unchanged, in ${result.seconds.toFixed(2)} s; newest day ${result.newest_day ?? "none"}`,
    );
    if (result.dry_run) for (const key of result.uploaded) out.line(`  ${key}`);
    const redisUrl = env.REDIS_URL?.trim();
    if (redisUrl && !result.dry_run && result.uploaded.length > 0) {
      await sendPublishHint(redisUrl, result.newest_day, warn);
    }
    return result;
  } finally {
    to.close();
  }
}

/**
 * Before a run that publishes: the bucket's days the folder lacks are copied into it, so the files
 * derived from the history (recent, stats, feeds, indexes) are built from all of it.
 */
export async function pullPublishedDays(target: BucketTarget, dir: string, out: Output): Promise<void> {
  const bucket = await openBucket(target);
  try {
    const pulled = await pullMissingDays(bucket, createFolderOrigin({ dir }));
    if (pulled.length > 0)
      out.line(`${bucket.describe}: copied ${pulled.length} published days the folder lacked`);
  } finally {
    bucket.close();
  }
}

export function registerPublish(program: Command): void {
  program
    .command("publish")
    .description("upload what changed in the published folder to an S3-compatible bucket (the CDN's origin)")
    .option("--to <url>", `where to publish: ${ORIGIN_URL_FORM} (default: PUBLISH_URL)`)
    .option("--from <dir>", "the published folder, as `picks curate --out` wrote it", DEFAULT_PUBLIC_DIR)
    .option("--dry-run", "list what would be uploaded, and upload nothing", false)
    .option("--json", "print the result as JSON", false)
    .action(async (flags: PublishFlags) => {
      const out = createOutput({ json: flags.json });
      const target = bucketTargetFrom(
        "--to",
        flags.to ?? (process.env.PUBLISH_URL?.trim() || undefined),
        process.env,
      );
      const result = await publishFolder({ target, from: flags.from, out, dryRun: flags.dryRun });
      out.json({
        to: bucketUrl(target),
        uploaded: result.uploaded.length,
        skipped: result.skipped,
        bytes: result.bytes,
        seconds: result.seconds,
        newest_day: result.newest_day,
        dry_run: result.dry_run,
        conditional_writes: result.conditional,
        files: result.uploaded,
      });
    });
}

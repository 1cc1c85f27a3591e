import type { Command } from "commander";
import { bucketUrl, ORIGIN_URL_FORM } from "../pipeline/domain/origin-url.ts";
import { type FolderPublish, publishFolderTo } from "../pipeline/origin/publish-folder.ts";
import { bucketTargetFrom } from "./bucket-option.ts";
import { createOutput, type Output } from "./output.ts";
import { DEFAULT_PUBLIC_DIR } from "./paths.ts";

interface PublishFlags {
  to?: string;
  from: string;
  dryRun: boolean;
  breakLease: boolean;
  json: boolean;
}

const kilobytes = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** How a publish went, in one line (and, for a dry run, the keys it would upload). */
export function printPublish(out: Output, result: FolderPublish): void {
  const verb = result.dry_run ? "would upload" : "uploaded";
  out.line(
    `${result.where}: ${verb} ${result.uploaded.length} files (${kilobytes(result.bytes)}) and ${result.objects} objects, ` +
      `${result.skipped} unchanged, in ${result.seconds.toFixed(2)} s; newest day ${result.newest_day ?? "none"}`,
  );
  if (result.dry_run) for (const key of result.uploaded) out.line(`  ${key}`);
}

/** The settings every publishing command gives `publishFolderTo`: warnings to stderr, progress, Redis. */
export function publishSettings(out: Output, env: NodeJS.ProcessEnv) {
  return {
    redisUrl: env.REDIS_URL?.trim() || undefined,
    warn: (message: string) => process.stderr.write(`picks: warning: ${message}\n`),
    progress: (done: number, total: number) => out.progress(`publish: ${done}/${total} uploaded`),
  };
}

export function registerPublish(program: Command): void {
  program
    .command("publish")
    .description("upload what changed in the published folder to an S3-compatible bucket (the CDN's origin)")
    .option("--to <url>", `where to publish: ${ORIGIN_URL_FORM} (default: PUBLISH_URL)`)
    .option("--from <dir>", "the published folder, as `picks curate --out` wrote it", DEFAULT_PUBLIC_DIR)
    .option("--dry-run", "list what would be uploaded, and upload nothing", false)
    .option(
      "--break-lease",
      "take over another publisher's running lease (one you know is dead), saying whose it was",
      false,
    )
    .option("--json", "print the result as JSON", false)
    .action(async (flags: PublishFlags) => {
      const out = createOutput({ json: flags.json });
      const target = bucketTargetFrom(
        "--to",
        flags.to ?? (process.env.PUBLISH_URL?.trim() || undefined),
        process.env,
      );
      const result = await publishFolderTo(target, flags.from, {
        ...publishSettings(out, process.env),
        dryRun: flags.dryRun,
        breakLease: flags.breakLease,
      });
      printPublish(out, result);
      out.json({
        to: bucketUrl(target),
        uploaded: result.uploaded.length,
        objects: result.objects,
        dropped: result.dropped,
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

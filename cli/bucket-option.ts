import { Option } from "commander";
import { ORIGIN_URL_FORM } from "../pipeline/domain/origin-url.ts";
import { type BucketTarget, bucketTarget } from "../pipeline/origin/open-origin.ts";
import { UsageError } from "./output.ts";

/**
 * `s3://bucket[/prefix]` with the environment's credentials, checked before any work: a wrong form or
 * missing credentials is a wrong call (exit 2), and the message shows the form.
 */
export function bucketTargetFrom(
  flag: string,
  value: string | undefined,
  env: NodeJS.ProcessEnv,
): BucketTarget {
  if (value === undefined) throw new UsageError(`Expected \`${flag}\` ${ORIGIN_URL_FORM}`);
  const target = bucketTarget(value, env);
  if ("problem" in target)
    throw new UsageError(`Expected \`${flag}\` to be ${ORIGIN_URL_FORM}: ${target.problem}`);
  return target;
}

/** `--publish s3://...` of `picks curate` and `picks backfill`: publish after writing the folder. */
export function publishOption(): Option {
  return new Option(
    "--publish <url>",
    `after writing the folder, publish what changed to ${ORIGIN_URL_FORM} (default: PUBLISH_URL)`,
  );
}

/** The bucket to publish to after a run: `--publish`, else PUBLISH_URL, else none. */
export function publishTargetOf(flag: string | undefined, env: NodeJS.ProcessEnv): BucketTarget | undefined {
  const url = flag ?? (env.PUBLISH_URL?.trim() || undefined);
  return url === undefined
    ? undefined
    : bucketTargetFrom(flag === undefined ? "PUBLISH_URL" : "--publish", url, env);
}

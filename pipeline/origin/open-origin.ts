import { type BucketLocation, parseBucketUrl } from "../domain/origin-url.ts";
import type { OriginDriver } from "./origin.ts";
import type { S3Settings } from "./s3-origin.ts";

/** A bucket to publish to or load from, checked before anything is sent. */
export interface BucketTarget extends BucketLocation {
  settings: S3Settings;
}

const TRUE = /^(1|true|yes|on)$/i;

/**
 * The bucket driver's settings from the environment's usual names; a problem naming the variables
 * when the credentials are missing. The message never holds a secret.
 */
export function s3SettingsFromEnv(env: NodeJS.ProcessEnv): S3Settings | { problem: string } {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  const missing = [
    ...(accessKeyId ? [] : ["AWS_ACCESS_KEY_ID"]),
    ...(secretAccessKey ? [] : ["AWS_SECRET_ACCESS_KEY"]),
  ];
  if (missing.length > 0 || !accessKeyId || !secretAccessKey) {
    return { problem: `set ${missing.join(" and ")} to reach an S3-compatible bucket` };
  }
  const endpoint = env.S3_ENDPOINT?.trim();
  if (endpoint && !isPlainOrigin(endpoint)) {
    // Not echoed: a mistyped endpoint can hold credentials (https://key:secret@host).
    return {
      problem:
        "expected S3_ENDPOINT to be an http(s) origin without credentials, path or query, such as https://ACCOUNT.r2.cloudflarestorage.com",
    };
  }
  const region = env.AWS_REGION?.trim() || "auto";
  if (!endpoint && region === "auto") {
    return { problem: "set AWS_REGION to the bucket's region (AWS S3), or S3_ENDPOINT for another store" };
  }
  const token = env.AWS_SESSION_TOKEN?.trim();
  return {
    accessKeyId,
    secretAccessKey,
    ...(token ? { sessionToken: token } : {}),
    region,
    ...(endpoint ? { endpoint: endpoint.replace(/\/$/, "") } : {}),
    forcePathStyle: TRUE.test(env.S3_FORCE_PATH_STYLE ?? ""),
  };
}

function isPlainOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === "https:" || url.protocol === "http:") &&
      url.username === "" &&
      url.password === "" &&
      url.pathname === "/" &&
      url.search === "" &&
      url.hash === ""
    );
  } catch {
    return false;
  }
}

/** `s3://bucket[/prefix]` and the environment's settings together; a problem for either. */
export function bucketTarget(url: string, env: NodeJS.ProcessEnv): BucketTarget | { problem: string } {
  const location = parseBucketUrl(url);
  if ("problem" in location) {
    return { problem: location.secret ? location.problem : `\`${url}\`: ${location.problem}` };
  }
  const settings = s3SettingsFromEnv(env);
  if ("problem" in settings) return settings;
  return { ...location, settings };
}

/**
 * Opens a bucket. The S3 client is loaded here, not at the top: a command that never reaches a bucket
 * does not pay for it at start.
 */
export async function openBucket(
  target: BucketTarget,
  options: { pageSize?: number } = {},
): Promise<OriginDriver> {
  const { createS3Origin } = await import("./s3-origin.ts");
  return createS3Origin({ ...target, ...options });
}

// Where published snapshots live, as the operator writes it: `s3://bucket[/prefix]`.

export interface BucketLocation {
  bucket: string;
  /** Without leading or trailing slashes; "" for the bucket's root. */
  prefix: string;
}

export const ORIGIN_URL_FORM = "s3://bucket[/prefix]";

// S3's rules for names of new buckets, which R2, B2, MinIO and GCS share: 3 to 63 characters of
// lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * Parses `s3://bucket[/prefix]`; a reason instead when it is not that form.
 *
 * @example parseBucketUrl("s3://picks/prod/") // { bucket: "picks", prefix: "prod" }
 */
export function parseBucketUrl(value: string): BucketLocation | { problem: string; secret?: true } {
  if (/[@?#]/.test(value)) {
    // Not echoed: user info (`s3://KEY:SECRET@bucket`) or a query (`?X-Amz-Credential=...`) can hold a
    // secret, and a message is printed, logged and pasted.
    return {
      problem:
        "a bucket URL holds no user info, query or fragment (it is not repeated here, as it may hold a secret); " +
        "give the credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
      secret: true,
    };
  }
  const match = /^s3:\/\/([^/?#]+)(\/[^?#]*)?$/.exec(value);
  if (!match) return { problem: `expected ${ORIGIN_URL_FORM}` };
  const bucket = match[1] as string;
  if (!BUCKET.test(bucket) || bucket.includes("..")) {
    return { problem: `\`${bucket}\` is not a bucket name (3-63 lower-case letters, digits, dots, hyphens)` };
  }
  const segments = (match[2] ?? "").split("/").filter(Boolean);
  const bad = segments.find((segment) => !SEGMENT.test(segment));
  if (bad !== undefined) return { problem: `the prefix segment \`${bad}\` is not allowed` };
  return { bucket, prefix: segments.join("/") };
}

/** The location written back as a URL: `s3://bucket/prefix`. */
export function bucketUrl(location: BucketLocation): string {
  return `s3://${location.bucket}${location.prefix ? `/${location.prefix}` : ""}`;
}

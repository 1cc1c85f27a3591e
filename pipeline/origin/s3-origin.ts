import type { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { type BucketLocation, bucketUrl } from "../domain/origin-url.ts";
import {
  ConditionFailedError,
  ConditionsUnsupportedError,
  type ObjectMeta,
  type OriginDriver,
  type OriginEntry,
  OriginError,
  TooLargeError,
} from "./origin.ts";

export interface S3Settings {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** `auto` for R2; a real region for AWS. */
  region: string;
  /** Unset: AWS itself. */
  endpoint?: string;
  forcePathStyle: boolean;
}

export interface S3OriginOptions extends BucketLocation {
  settings: S3Settings;
  /** Keys a listing asks for at once (the store's maximum is 1000); tests make it small. */
  pageSize?: number;
  /** Attempts per call, retries included (5xx, 429 and network errors, with backoff and jitter). */
  maxAttempts?: number;
}

const statusOf = (error: unknown): number | undefined =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

const codeOf = (error: unknown): string =>
  (error as { Code?: string }).Code ?? (error as Error).name ?? "Error";

/**
 * An answer's body, read no further than `maxBytes`: a store (or anyone who wrote to it) can hold far
 * more under a key than the manifest says, and only the manifest's size is ever wanted.
 */
async function bodyOf(
  answer: { Body?: unknown; ContentLength?: number },
  maxBytes: number | undefined,
  tooLarge: () => Error,
): Promise<Buffer> {
  const body = answer.Body as Readable | undefined;
  if (!body) return Buffer.alloc(0);
  if (maxBytes !== undefined && (answer.ContentLength ?? 0) > maxBytes) {
    body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).byteLength;
    if (maxBytes !== undefined && size > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

export function createS3Origin(options: S3OriginOptions): OriginDriver {
  const { bucket, prefix, settings } = options;
  const endpoint = settings.endpoint ?? `AWS S3 (${settings.region})`;
  const where = `${bucketUrl(options)} at ${endpoint}`;
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    credentials: {
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
      ...(settings.sessionToken ? { sessionToken: settings.sessionToken } : {}),
    },
    // The SDK's default CRC32 checksums are refused by R2 and other S3-compatible stores; the
    // manifest's SHA-256 is this service's check of content.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // The standard retry mode: exponential backoff with jitter on 5xx, throttling (429, SlowDown)
    // and network errors, the same rules as the service's other outbound calls.
    maxAttempts: options.maxAttempts ?? 4,
    retryMode: "standard",
    // An endpoint that refuses or never answers fails a call in seconds, not minutes.
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 20_000 },
  });
  const fullKey = (key: string): string => (prefix ? `${prefix}/${key}` : key);
  const tooLarge = (key: string, maxBytes: number) =>
    new TooLargeError(`${key} in ${bucketUrl(options)} is larger than ${maxBytes} bytes`);

  /** The store's refusal in the operator's terms: which bucket, which endpoint, what to change. */
  const explain = (error: unknown, action: string): Error => {
    if (error instanceof ConditionFailedError || error instanceof ConditionsUnsupportedError) return error;
    const status = statusOf(error);
    const code = codeOf(error);
    if (code === "NoSuchBucket") return new OriginError(`bucket ${bucket} does not exist at ${endpoint}`);
    if (status === 301 || code === "PermanentRedirect") {
      return new OriginError(
        `${where} refused to ${action} (301 PermanentRedirect): the bucket is in another region; set AWS_REGION to its region`,
      );
    }
    if (status === 403 || code === "AccessDenied" || code === "InvalidAccessKeyId") {
      return new OriginError(
        `${where} refused to ${action} (403 ${code}): the credentials need s3:GetObject, s3:PutObject, ` +
          `s3:DeleteObject and s3:ListBucket on ${bucketUrl(options)}/*`,
      );
    }
    if (!(error instanceof S3ServiceException)) {
      const cause = (error as { code?: string }).code ?? (error as Error).message;
      return new OriginError(`cannot reach ${endpoint} to ${action} in ${bucketUrl(options)}: ${cause}`);
    }
    return new OriginError(`${where} failed to ${action} (${status ?? "no status"} ${code})`);
  };

  return {
    label: where,
    async list(under) {
      const found: OriginEntry[] = [];
      let token: string | undefined;
      const strip = prefix ? prefix.length + 1 : 0;
      try {
        do {
          const page = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: fullKey(under),
              ...(token ? { ContinuationToken: token } : {}),
              MaxKeys: options.pageSize ?? 1000,
            }),
          );
          for (const object of page.Contents ?? []) {
            if (!object.Key) continue;
            found.push({
              key: object.Key.slice(strip),
              size: object.Size ?? 0,
              modifiedMs: object.LastModified?.getTime() ?? 0,
            });
          }
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
      } catch (error) {
        throw explain(error, `list ${under || "its objects"}`);
      }
      return found;
    },
    async read(key, maxBytes) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: fullKey(key) }));
        return await bodyOf(answer, maxBytes, () => tooLarge(key, maxBytes as number));
      } catch (error) {
        if (error instanceof TooLargeError) throw error;
        if (codeOf(error) === "NoSuchKey") return undefined;
        throw explain(error, `read ${key}`);
      }
    },
    async readStream(key) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: fullKey(key) }));
        return answer.Body as Readable;
      } catch (error) {
        if (codeOf(error) === "NoSuchKey") return undefined;
        throw explain(error, `read ${key}`);
      }
    },
    async readIfChanged(key, etag, maxBytes) {
      try {
        const answer = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: fullKey(key), ...(etag ? { IfNoneMatch: etag } : {}) }),
        );
        const body = await bodyOf(answer, maxBytes, () => tooLarge(key, maxBytes as number));
        return { body, etag: answer.ETag ?? "" };
      } catch (error) {
        if (error instanceof TooLargeError) throw error;
        if (statusOf(error) === 304) return "unchanged";
        if (codeOf(error) === "NoSuchKey") return undefined;
        throw explain(error, `read ${key}`);
      }
    },
    async head(key): Promise<ObjectMeta | undefined> {
      try {
        const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: fullKey(key) }));
        return {
          size: answer.ContentLength ?? 0,
          etag: answer.ETag ?? "",
          contentType: answer.ContentType,
          cacheControl: answer.CacheControl,
          sha256: answer.Metadata?.sha256,
        };
      } catch (error) {
        if (statusOf(error) === 404 && codeOf(error) !== "NoSuchBucket") return undefined;
        throw explain(error, `read ${key}`);
      }
    },
    async write(key, body, meta, condition) {
      try {
        const answer = await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: fullKey(key),
            Body: body,
            ContentLength: body.byteLength,
            ContentType: meta.contentType,
            CacheControl: meta.cacheControl,
            Metadata: { sha256: meta.sha256, ...(meta.fence ? { fence: meta.fence } : {}) },
            ...(condition && "ifMatch" in condition ? { IfMatch: condition.ifMatch } : {}),
            ...(condition && "ifNoneMatch" in condition ? { IfNoneMatch: condition.ifNoneMatch } : {}),
          }),
        );
        return { etag: answer.ETag ?? "" };
      } catch (error) {
        const status = statusOf(error);
        // If-Match on a key that is gone is a 404 NoSuchKey: the object is not the one seen either.
        const gone = condition && "ifMatch" in condition && codeOf(error) === "NoSuchKey";
        if (condition && (status === 412 || status === 409 || gone)) {
          throw new ConditionFailedError(`${key} in ${bucketUrl(options)} changed since it was read`);
        }
        if (condition && status === 501) {
          throw new ConditionsUnsupportedError(`${endpoint} does not support conditional writes`);
        }
        throw explain(error, `write ${key}`);
      }
    },
    async remove(key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: fullKey(key) }));
      } catch (error) {
        throw explain(error, `delete ${key}`);
      }
    },
    close() {
      client.destroy();
    },
  };
}

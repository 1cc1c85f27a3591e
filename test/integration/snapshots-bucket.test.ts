import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Health } from "../../pipeline/domain/api-answers.ts";
import {
  type MotoServer,
  motoSkipReason,
  publishToNewBucket,
  s3Client,
  s3Env,
  startMoto,
} from "../helpers/moto.ts";
import { runPicks } from "../helpers/processes.ts";
import { curateListingArgs, publishSampleDays } from "../helpers/published.ts";
import { type RedisServer, redisSkipReason, startRedis } from "../helpers/redis.ts";
import { startS3Proxy } from "../helpers/s3-proxy.ts";
import { waitFor } from "../server/submissions/helpers.ts";
import { type PicksChild, startPicks, stopPicks } from "../server/submissions/picks-process.ts";
import { createEndpoint, issuePaidKey, type Receiver, startReceiver } from "../server/webhooks/receiver.ts";

// Past one machine: API servers with working folders of their own and no shared disk load the days
// from a bucket (moto's real S3 API on loopback); a curate on a third "machine" publishes a new day,
// and every server serves it: at once on a Redis hint, within the poll interval without one.

const skip = motoSkipReason();
const skipRedis = skip ?? redisSkipReason();
const NEW_DAY = "2026-11-23";

const servePlain = (url: string, publicDir: string) => [
  "serve",
  "--port",
  "0",
  "--public",
  publicDir,
  "--snapshots",
  url,
];

const emptyDir = (label: string) => mkdtemp(join(tmpdir(), `picks-${label}-`));

const status = async (url: string) => (await fetch(url)).status;
const healthOf = async (url: string) => (await (await fetch(`${url}/health`)).json()) as Health;

/** A bucket holding the three sample days, published by `picks publish`. */
async function seededBucket(moto: MotoServer, env: Record<string, string>): Promise<string> {
  return publishToNewBucket(moto.endpoint, "picks-site", (await publishSampleDays()).publicDir, env);
}

const curateArgs = (url: string, out: string, runs: string) => [
  ...curateListingArgs(out, runs, NEW_DAY),
  "--publish",
  url,
];

describe.skipIf(skipRedis)("two servers, one Redis, one bucket", () => {
  let moto: MotoServer;
  let redis: RedisServer;
  let receiver: Receiver;
  let servers: PicksChild[] = [];
  let env: Record<string, string>;
  let url: string;

  beforeAll(async () => {
    [moto, redis, receiver] = await Promise.all([startMoto(), startRedis(), startReceiver()]);
    env = {
      ...s3Env(moto.endpoint),
      STATE_STORE: "redis",
      REDIS_URL: redis.url,
      // Far beyond the test: only the hint can bring the day within 2 s.
      SNAPSHOTS_POLL_SECONDS: "600",
      WEBHOOK_ALLOW_LOOPBACK: "1",
      WEBHOOK_POLL_MS: "100",
    };
    url = await seededBucket(moto, env);
    servers = await Promise.all(
      ["a", "b"].map(async (name) =>
        startPicks(servePlain(url, await emptyDir(`serve-${name}`)), env, /listening on http/),
      ),
    );
  }, 90_000);
  afterAll(async () => {
    await stopPicks(servers);
    await Promise.all([moto?.stop(), redis?.stop(), receiver?.close()]);
  });

  it("serve the bucket's days with no local copy, and a curate --publish elsewhere within 2 s, announced once", async () => {
    for (const server of servers) {
      expect(await status(`${server.url}/v1/daily/2026-11-20`)).toBe(200);
      expect(await status(`${server.url}/`)).toBe(404);
      const health = await healthOf(server.url as string);
      expect(health.snapshots).toMatchObject({
        kind: "bucket",
        origin: url,
        manifest_newest_day: "2026-11-20",
        problem: null,
      });
      expect(health.status).toBe("ok");
    }
    const key = await issuePaidKey(env);
    await createEndpoint(servers[0]?.url as string, key, receiver, "/daily", ["daily.published"]);
    // What a receiver meets when it follows the event at once: the day in the bucket (the CDN's
    // origin), since the job publishes before anything announces.
    const [bucket, prefix] = url.slice("s3://".length).split("/") as [string, string];
    const inBucketOnArrival: boolean[] = [];
    const checker = s3Client(moto.endpoint);
    receiver.behaviours.set("/daily", (_req, res) => {
      // The manifest is written last: it names the day once the whole publish is in place.
      const manifest = new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/v1/manifest.json` });
      void checker
        .send(manifest)
        .then((answer) => answer.Body?.transformToString() ?? "")
        .then((text) => {
          inBucketOnArrival.push(text.includes(`"v1/daily/${NEW_DAY}.json"`));
          res.writeHead(200).end("ok");
        });
    });

    const curator = await emptyDir("curator");
    // The curating host reaches a slow store: an announcement made before its publish ends would
    // reach the receiver before the day is in the bucket.
    const slow = await startS3Proxy(moto.endpoint);
    slow.delayPuts(400);
    const done = await runPicks(curateArgs(url, join(curator, "public"), join(curator, "runs")), {
      ...process.env,
      ...env,
      ...s3Env(slow.endpoint),
    });
    await slow.close();
    expect(done.code, done.stderr).toBe(0);
    // The new machine's folder had none of the history: it was copied first, so recent.json keeps it.
    expect(done.stdout).toMatch(/copied 3 published days the folder lacked/);
    const landed = Date.now();
    for (const server of servers) {
      await waitFor(
        async () => (await status(`${server.url}/v1/daily/${NEW_DAY}`)) === 200 || null,
        2_000,
        server.url ?? "",
      );
      const latest = (await (await fetch(`${server.url}/v1/daily/latest`)).json()) as { date: string };
      expect(latest.date).toBe(NEW_DAY);
      const recent = await (await fetch(`${server.url}/v1/recent`)).json();
      expect(JSON.stringify(recent)).toContain("2026-11-20");
    }
    expect(Date.now() - landed).toBeLessThan(2_000);
    await waitFor(async () => receiver.of("/daily", "daily.published").length > 0 || null, 5_000, "webhook");
    // Both servers saw the day appear, and curate announced it too: one delivery all the same.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const got = receiver.of("/daily", "daily.published");
    expect(got).toHaveLength(1);
    expect(got[0]?.id).toBe(`evt_daily_${NEW_DAY}`);
    checker.destroy();
    expect(inBucketOnArrival).toEqual([true]);
  }, 90_000);
});

describe.skipIf(skip)("servers without Redis", () => {
  let moto: MotoServer;
  let servers: PicksChild[] = [];
  let env: Record<string, string>;
  let url: string;

  beforeAll(async () => {
    moto = await startMoto();
    env = { ...s3Env(moto.endpoint), STATE_STORE: "memory", SNAPSHOTS_POLL_SECONDS: "1" };
    url = await seededBucket(moto, env);
    servers = await Promise.all(
      ["c", "d"].map(async (name) =>
        startPicks(servePlain(url, await emptyDir(`serve-${name}`)), env, /listening on http/),
      ),
    );
  }, 90_000);
  afterAll(async () => {
    await stopPicks(servers);
    await moto?.stop();
  });

  it("find a day published elsewhere within the poll interval", async () => {
    const curator = await emptyDir("curator");
    const done = await runPicks(curateArgs(url, join(curator, "public"), join(curator, "runs")), {
      ...process.env,
      ...env,
    });
    expect(done.code, done.stderr).toBe(0);
    const landed = Date.now();
    for (const server of servers) {
      await waitFor(
        async () => (await status(`${server.url}/v1/daily/${NEW_DAY}`)) === 200 || null,
        3_000,
        server.url ?? "",
      );
    }
    // One poll interval (1 s), plus the reload's reads.
    expect(Date.now() - landed).toBeLessThan(2_500);
  }, 60_000);

  it("keep serving the last good set when the manifest turns corrupt, and say why in /health", async () => {
    const [bucket, prefix] = url.slice("s3://".length).split("/") as [string, string];
    const client = s3Client(moto.endpoint);
    try {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/v1/manifest.json`, Body: "{not json" }),
      );
    } finally {
      client.destroy();
    }
    const server = servers[0] as PicksChild;
    const health = await waitFor(async () => {
      const body = await healthOf(server.url as string);
      return body.snapshots.problem ? body : null;
    }, 5_000);
    expect(health.status).toBe("degraded");
    expect(health.snapshots.problem).toMatch(/v1\/manifest\.json in s3:\/\/.* is not valid JSON/);
    expect(await status(`${server.url}/v1/daily/${NEW_DAY}`)).toBe(200);

    // A new server refuses to start on it.
    const refused = await runPicks(servePlain(url, await emptyDir("serve-e")), { ...process.env, ...env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/manifest\.json in s3:\/\/.* is not valid JSON/);
  }, 60_000);
});

describe.skipIf(skip)("a bucket out of reach", () => {
  let moto: MotoServer;

  beforeAll(async () => {
    moto = await startMoto();
  }, 60_000);
  afterAll(async () => {
    await moto?.stop();
  });

  it("at start: exit 1 within 15 s, naming the endpoint and the bucket", async () => {
    const closed = await startS3Proxy(moto.endpoint);
    const endpoint = closed.endpoint;
    await closed.close();
    const started = Date.now();
    const done = await runPicks(servePlain("s3://gone-bucket/site", await emptyDir("serve-f")), {
      ...process.env,
      ...s3Env(endpoint),
      STATE_STORE: "memory",
    });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(done.code).toBe(1);
    expect(done.stderr).toContain(endpoint);
    expect(done.stderr).toContain("s3://gone-bucket/site");
  }, 30_000);

  it("later: the last good set is served and /health says degraded with the age", async () => {
    const proxy = await startS3Proxy(moto.endpoint);
    const env = { ...s3Env(proxy.endpoint), STATE_STORE: "memory", SNAPSHOTS_POLL_SECONDS: "0.5" };
    const url = await seededBucket(moto, { ...env, ...s3Env(moto.endpoint) });
    const server = await startPicks(servePlain(url, await emptyDir("serve-g")), env, /listening on http/);
    try {
      expect(await status(`${server.url}/v1/daily/2026-11-20`)).toBe(200);
      await proxy.close();
      const health = await waitFor(async () => {
        const body = await healthOf(server.url as string);
        return body.snapshots.stale_seconds !== null && body.snapshots.stale_seconds >= 1 ? body : null;
      }, 10_000);
      expect(health.status).toBe("degraded");
      expect(health.snapshots.problem).toMatch(/cannot reach the endpoint/);
      // The endpoint can name an account: /health, which is public, does not show it.
      expect(health.snapshots.problem).not.toContain(proxy.endpoint);
      expect(await status(`${server.url}/v1/daily/2026-11-20`)).toBe(200);
    } finally {
      await stopPicks([server]);
    }
  }, 60_000);
});

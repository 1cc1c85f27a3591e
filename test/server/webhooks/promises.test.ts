import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCurate } from "../../../cli/curate-command.ts";
import type { Output } from "../../../cli/output.ts";
import { DEFAULT_SELECTION } from "../../../pipeline/domain/selection.ts";
import { createFileSource } from "../../../pipeline/sources/file-source.ts";
import { LISTING_250 } from "../../helpers/fixtures.ts";
import { runPicks } from "../../helpers/processes.ts";
import { publishSampleDays } from "../../helpers/published.ts";
import { type RedisServer, redisSkipReason, startRedis } from "../../helpers/redis.ts";
import { ABOUT_PAGE, waitFor } from "../submissions/helpers.ts";
import {
  type PicksChild,
  serveArgs,
  serveSampleOnSqlite,
  startPicks,
  stopPicks,
} from "../submissions/picks-process.ts";
import { createEndpoint, issuePaidKey, type Receiver, startReceiver, submitRuntime } from "./receiver.ts";

// Promises of the webhooks under faults, with real `picks serve` processes and a loopback receiver:
// a manual retry while the scheduled one is minutes away, days published out of order, and a worker
// killed right after it recorded a score.

const FAST = {
  WEBHOOK_ALLOW_LOOPBACK: "1",
  WEBHOOK_POLL_MS: "100",
  WORKER_POLL_MS: "100",
};

/** The least wait of a scheduled retry here: four minutes less the jitter of 20%, less a margin. */
const MINUTES_AWAY = 180_000;
/**
 * "At once" for a manual retry: far under the scheduled retry's minutes, with room for a machine busy
 * with other suites (2 s here failed now and then beside them).
 */
const PROMPTLY = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Skipped only on a developer machine without redis-server; CI installs it, so there it must run.
const noRedis = redisSkipReason() !== null && !process.env.CI;

describe.each([
  ["sqlite", false],
  ["redis", noRedis],
] as const)("a manual retry on the %s store", (kind, skip) => {
  let receiver: Receiver;
  let redis: RedisServer | undefined;
  let server: PicksChild | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    if (skip) return;
    receiver = await startReceiver();
    redis = kind === "redis" ? await startRedis() : undefined;
    const site = await publishSampleDays();
    env = {
      ...FAST,
      // The scheduled retry is four minutes away (±20% jitter): only the manual one can be seen within the test.
      WEBHOOK_RETRY_SCHEDULE_MS: "240000,240000,240000",
      ...(redis
        ? { REDIS_URL: redis.url }
        : { STATE_STORE: "sqlite", STATE_DIR: await mkdtemp(join(tmpdir(), "picks-retry-")) }),
    };
    server = await startPicks(serveArgs(site.publicDir), env, /listening on http/);
  }, 60_000);
  afterAll(async () => {
    await stopPicks([server]);
    await redis?.stop();
    await receiver?.close();
  });

  it.skipIf(skip)(
    "attempts at once while the next scheduled retry is minutes away, and starts its schedule over",
    async () => {
      const key = await issuePaidKey(env);
      receiver.behaviours.set("/flaky", (_req, res, count) => res.writeHead(count <= 2 ? 500 : 200).end());
      const { id } = await createEndpoint(server?.url as string, key, receiver, "/flaky", [
        "daily.published",
      ]);
      const api = (path: string, method = "GET") =>
        fetch(`${server?.url}/v1/webhooks/${id}${path}`, { method, headers: { "x-api-key": key } });
      const attempts = async (count: number) =>
        waitFor(async () => {
          const body = (await (await api("/deliveries")).json()) as {
            attempts: Array<{
              delivery_id: string;
              attempt: number;
              delivered: boolean;
              next_retry_at: string;
            }>;
          };
          return body.attempts.length >= count ? body.attempts : null;
        }, PROMPTLY);

      expect((await api("/test", "POST")).status).toBe(202);
      const [first] = await attempts(1);
      expect(first?.delivered).toBe(false);
      expect(Date.parse(first?.next_retry_at ?? "") - Date.now()).toBeGreaterThan(MINUTES_AWAY);

      for (const [count, delivered] of [
        [2, false],
        [3, true],
      ] as const) {
        const asked = Date.now();
        const retried = await api(`/deliveries/${first?.delivery_id}/retry`, "POST");
        expect(retried.status).toBe(202);
        const [latest] = await attempts(count);
        expect(Date.now() - asked).toBeLessThan(PROMPTLY);
        expect(latest).toMatchObject({ attempt: count, delivered });
        // The schedule starts over: the next retry is the first step of it again, not a later one.
        if (!delivered)
          expect(Date.parse(latest?.next_retry_at ?? "") - Date.now()).toBeGreaterThan(MINUTES_AWAY);
      }
      await sleep(500);
      expect(receiver.received.filter((r) => r.path === "/flaky")).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1);
    },
    60_000,
  );
});

describe("days published out of order", () => {
  let receiver: Receiver;
  let server: PicksChild;
  let site: { publicDir: string; runsDir: string };
  let env: Record<string, string>;

  beforeAll(async () => {
    receiver = await startReceiver();
    ({ server, env, site } = await serveSampleOnSqlite(FAST, "order"));
    const key = await issuePaidKey(env);
    await createEndpoint(server.url as string, key, receiver, "/days", ["daily.published"]);
  }, 60_000);
  afterAll(async () => {
    await stopPicks([server]);
    await receiver.close();
  });

  const curateDay = async (date: string) => {
    const args = ["curate", "--source", `file:${LISTING_250}`, "--date", date, "--no-citations"];
    const done = await runPicks([...args, "--out", site.publicDir, "--runs", site.runsDir], {
      ...process.env,
      ...env,
    });
    expect(done.code, done.stderr).toBe(0);
  };
  const announced = () => receiver.of("/days", "daily.published").map((r) => r.id);

  it("announces a missed day curated after a newer one, once, and not again when curated again", async () => {
    await curateDay("2026-11-24");
    await waitFor(async () => announced().includes("evt_daily_2026-11-24") || null, 5_000);
    await curateDay("2026-11-22");
    await waitFor(async () => announced().includes("evt_daily_2026-11-22") || null, 5_000);
    await curateDay("2026-11-22");
    await sleep(1_500);
    expect(announced()).toEqual(["evt_daily_2026-11-24", "evt_daily_2026-11-22"]);
  }, 60_000);

  it("announces nothing of a day imported quietly, neither from the import nor from the server", async () => {
    const before = receiver.received.length;
    const out: Output = { progress: () => {}, line: () => {}, json: () => {} };
    await runCurate({
      date: "2026-11-26",
      source: createFileSource(LISTING_250),
      outDir: site.publicDir,
      runsDir: site.runsDir,
      selection: DEFAULT_SELECTION,
      out,
      firmViews: false,
      webhooks: "quiet",
      env: { ...process.env, ...env },
    });
    // The server reloads the files within a moment; a day it announced would be delivered by then.
    await sleep(2_500);
    expect(receiver.received.slice(before)).toEqual([]);
    const day = await fetch(`${server.url}/v1/daily/2026-11-26`);
    expect(day.status).toBe(200);
  }, 30_000);
});

describe.each([
  ["sqlite", false],
  ["redis", noRedis],
] as const)("a worker killed right after recording a score, on the %s store", (kind, skip) => {
  it.skipIf(skip)(
    "leaves the score and its submission.scored both recorded: sent after the restart",
    async () => {
      const receiver = await startReceiver();
      receiver.behaviours.set("/about", (_req, res) =>
        res.writeHead(200, { "content-type": "text/html" }).end(ABOUT_PAGE),
      );
      const redis = kind === "redis" ? await startRedis() : undefined;
      const site = await publishSampleDays();
      const env: Record<string, string> = {
        ...FAST,
        SUBMIT_ALLOW_LOOPBACK: "1",
        SUBMIT_LEASE_MS: "1500",
        ...(redis
          ? { REDIS_URL: redis.url }
          : { STATE_STORE: "sqlite", STATE_DIR: await mkdtemp(join(tmpdir(), "picks-scored-")) }),
      };
      let server: PicksChild | undefined;
      try {
        const crashing = { ...env, SUBMIT_TEST_CRASH_AFTER_OUTCOME: "1" };
        server = await startPicks(serveArgs(site.publicDir), crashing, /listening on http/);
        const key = await issuePaidKey(env);
        await createEndpoint(server.url as string, key, receiver, "/scored", ["submission.scored"]);
        const submission_id = await submitRuntime(server.url as string, receiver);
        expect(await server.exited).toMatchObject({ signal: "SIGKILL" });
        expect(receiver.of("/scored", "submission.scored")).toEqual([]);

        server = await startPicks(serveArgs(site.publicDir), env, /listening on http/);
        const [event] = await waitFor(async () => {
          const got = receiver.of("/scored", "submission.scored");
          return got.length > 0 ? got : null;
        }, 5_000);
        const payload = JSON.parse(event?.body ?? "{}");
        expect(payload.data.submission_id).toBe(submission_id);
        expect(payload.data.leaderboard_rank).toBe(1);
        // The killed worker's lease runs out, and the next one settles what was recorded: no new score.
        await waitFor(async () => {
          const answer = await fetch(`${server?.url}/v1/score/submission/${submission_id}`);
          return ((await answer.json()) as { status: string }).status === "scored" || null;
        }, 5_000);
        await sleep(500);
        expect(receiver.received.filter((r) => r.path === "/scored")).toHaveLength(1);
      } finally {
        await stopPicks([server]);
        await redis?.stop();
        await receiver.close();
      }
    },
    60_000,
  );
});

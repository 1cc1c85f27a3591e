import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SubmissionView } from "../../../pipeline/domain/submission.ts";
import { redisSkipReason, startRedis } from "../../helpers/redis.ts";
import { ABOUT_PAGE, type PageServer, SUBMISSION, startPageServer, waitFor } from "./helpers.ts";
import { type PicksChild, serveArgs, startPicks, stopPicks } from "./picks-process.ts";

interface Board {
  total: number;
  entries: Array<{ submission_id: number; rank: number }>;
}

// Skipped only on a developer machine without redis-server; CI installs it, so there it must run.
const skip = redisSkipReason() !== null && !process.env.CI;

describe.skipIf(skip)("two servers without workers and one `picks worker` sharing Redis", () => {
  let pages: PageServer;
  let stopRedis: () => Promise<void>;
  let servers: PicksChild[] = [];
  let worker: PicksChild;

  beforeAll(async () => {
    pages = await startPageServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(ABOUT_PAGE),
    );
    const redis = await startRedis();
    stopRedis = redis.stop;
    const publicDir = await mkdtemp(join(tmpdir(), "picks-public-"));
    const env = {
      REDIS_URL: redis.url,
      SUBMIT_ALLOW_LOOPBACK: "1",
      SUBMIT_RATE_LIMIT: "100",
      WORKER_POLL_MS: "100",
    };
    servers = await Promise.all([
      startPicks(serveArgs(publicDir, ["--no-worker"]), env, /listening on http/),
      startPicks(serveArgs(publicDir), { ...env, WORKER: "off" }, /listening on http/),
    ]);
    worker = await startPicks(["worker"], env, /submission worker running/);
  }, 60_000);
  afterAll(async () => {
    await stopPicks([...servers, worker]);
    await stopRedis?.();
    await pages.close();
  });

  const url = (i: number) => (servers[i % 2] as PicksChild).url as string;
  const board = async (i: number) => (await (await fetch(`${url(i)}/v1/score/leaderboard`)).json()) as Board;

  it("gives distinct ids, scores each once in the worker, and both servers agree on the board", async () => {
    const first = await fetch(`${url(0)}/v1/score/submit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...SUBMISSION, url: `${pages.url}/about` }),
    });
    const { submission_id: firstId } = (await first.json()) as { submission_id: number };
    await waitFor(
      async () => ((await board(1)).total === 1 ? true : null),
      10_000,
      "the first submission on the second server's leaderboard",
    );

    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fetch(`${url(i)}/v1/score/submit`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...SUBMISSION, runtime_name: `Runtime ${i}`, url: `${pages.url}/about` }),
        }).then((response) => response.json() as Promise<{ submission_id: number }>),
      ),
    );
    const ids = [firstId, ...answers.map((answer) => answer.submission_id)].sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));

    await waitFor(
      async () => {
        const views = await Promise.all(
          ids.map(
            async (id) =>
              (await (await fetch(`${url(id)}/v1/score/submission/${id}`)).json()) as SubmissionView,
          ),
        );
        return views.every((view) => view.status === "scored") ? true : null;
      },
      20_000,
      "every submission scored",
    );
    // The second server cached a board of one; the version key tells it the board changed.
    const [a, b] = await Promise.all([board(0), board(1)]);
    expect(a.total).toBe(13);
    expect(b).toEqual(a);
    await waitFor(
      async () =>
        ids.every((id) => worker.stderr.some((line) => line.startsWith(`submission ${id} scored:`)))
          ? true
          : null,
      5_000,
      "the worker's log lines",
    );
    for (const id of ids) {
      expect(worker.stderr.filter((line) => line.startsWith(`submission ${id} scored:`))).toHaveLength(1);
    }
    for (const server of servers) expect(server.stderr.some((line) => / scored:/.test(line))).toBe(false);
  }, 60_000);
});

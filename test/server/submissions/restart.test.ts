import { mkdtemp } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SubmissionView } from "../../../pipeline/domain/submission.ts";
import { ABOUT_PAGE, type PageServer, SUBMISSION, startPageServer, waitFor } from "./helpers.ts";
import { type PicksChild, serveArgs, startPicks } from "./picks-process.ts";

// While `gate` is closed, the page server holds every request: the worker is stuck in `fetching`.
let gateOpen = false;
const held: ServerResponse[] = [];
let pages: PageServer;
let stateDir: string;
let publicDir: string;
const children: PicksChild[] = [];

const answer = (res: ServerResponse) => {
  if (!res.destroyed) res.writeHead(200, { "content-type": "text/html" }).end(ABOUT_PAGE);
};

beforeAll(async () => {
  pages = await startPageServer((_req, res) => {
    if (gateOpen) answer(res);
    else held.push(res);
  });
  stateDir = await mkdtemp(join(tmpdir(), "picks-state-"));
  publicDir = await mkdtemp(join(tmpdir(), "picks-public-"));
});
afterAll(async () => {
  for (const { child } of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await pages.close();
});

const env = () => ({
  STATE_STORE: "sqlite",
  STATE_DIR: stateDir,
  SUBMIT_ALLOW_LOOPBACK: "1",
  SUBMIT_LEASE_MS: "1000",
  WORKER_POLL_MS: "100",
  WORKER_CONCURRENCY: "2",
  SUBMIT_RATE_LIMIT: "100",
});

async function serve(): Promise<PicksChild & { url: string }> {
  const started = await startPicks(serveArgs(publicDir), env(), /listening on http/);
  children.push(started);
  return started as PicksChild & { url: string };
}

const view = async (url: string, id: number) =>
  (await (await fetch(`${url}/v1/score/submission/${id}`)).json()) as SubmissionView;

const scoredLines = (child: PicksChild, id: number) =>
  child.stderr.filter((line) => line.startsWith(`submission ${id} scored:`)).length;

describe("a killed server", () => {
  it("scores queued and in-flight submissions after a restart, each exactly once", async () => {
    const first = await serve();
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${first.url}/v1/score/submit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...SUBMISSION, runtime_name: `Harbor ${i}`, url: `${pages.url}/about` }),
      });
      expect(response.status).toBe(202);
      ids.push(((await response.json()) as { submission_id: number }).submission_id);
    }
    expect(ids).toEqual([1, 2, 3, 4, 5, 6]);
    await waitFor(async () => (held.length === 2 ? true : null), 10_000, "two fetches in flight");
    const before = await Promise.all(ids.map((id) => view(first.url, id)));
    expect(before.map((v) => v.status).sort()).toEqual([
      "fetching",
      "fetching",
      "queued",
      "queued",
      "queued",
      "queued",
    ]);
    const inFlight = before.filter((v) => v.status === "fetching").map((v) => v.submission_id);

    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    gateOpen = true;
    for (const res of held.splice(0)) answer(res);

    const restartedAt = Date.now();
    const second = await serve();
    const after = await waitFor(
      async () => {
        const views = await Promise.all(ids.map((id) => view(second.url, id)));
        return views.every((v) => v.status === "scored") ? views : null;
      },
      20_000,
      "every submission scored after the restart",
    );
    const recoverySeconds = (Date.now() - restartedAt) / 1000;
    expect(recoverySeconds).toBeLessThan(10);
    // The log line follows the record by a moment; wait for it before counting.
    await waitFor(async () => (ids.every((id) => scoredLines(second, id) > 0) ? true : null), 5_000, "logs");
    for (const v of after) {
      expect(v.history.filter((step) => step.status === "scored")).toHaveLength(1);
      expect(v.attempts).toBe(inFlight.includes(v.submission_id) ? 2 : 1);
      expect(scoredLines(first, v.submission_id)).toBe(0);
      expect(scoredLines(second, v.submission_id)).toBe(1);
    }
    const board = (await (await fetch(`${second.url}/v1/score/leaderboard`)).json()) as {
      total: number;
      entries: Array<{ submission_id: number }>;
    };
    expect(board.total).toBe(6);
    expect(board.entries.map((entry) => entry.submission_id).sort()).toEqual(ids);

    // SIGTERM: the worker finishes the submission in hand, then the process exits on its own.
    gateOpen = false;
    const response = await fetch(`${second.url}/v1/score/submit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...SUBMISSION, url: `${pages.url}/about` }),
    });
    const { submission_id: last } = (await response.json()) as { submission_id: number };
    await waitFor(async () => (held.length === 1 ? true : null), 10_000, "the last fetch");
    second.child.kill("SIGTERM");
    setTimeout(() => {
      gateOpen = true;
      for (const res of held.splice(0)) answer(res);
    }, 300);
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(scoredLines(second, last)).toBe(1);

    const third = await serve();
    expect((await view(third.url, last)).status).toBe("scored");
    third.child.kill("SIGTERM");
    await third.exited;
  }, 60_000);
});

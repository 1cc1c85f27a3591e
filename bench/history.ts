// The `history` section of `npm run bench`: one server over ten years of published days (3,650 days,
// about 22,000 picks, 145 MB of day files, from the project's year generator with its picks index).

import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startPicksServer, startProcess } from "../test/helpers/processes.ts";
import { publishYear } from "../test/server/mcp/year-site.ts";
import { enterpriseKey } from "./keys.ts";
import { type LoadResult, load, pinServer } from "./load.ts";

const _run = promisify(execFile);
const BARE = fileURLToPath(new URL("./bare-server.mjs", import.meta.url));
const LAST = "2026-11-20";
const FULL = "/v1/papers?days=3650&limit=5000";

export interface HistoryFigures {
  startMs: number;
  bareStartMs: number;
  /** The enterprise full-history query sent the moment a fresh server gave its first answer. */
  firstFullMs: number;
  rssStartMb: number;
  /** After SETTLE_SECONDS at rest from the start. */
  rssSettledMb: number;
  settleSeconds: number;
  fullBytes: number;
  /** Another full-history query, the first of its kind: filtered, encoded, no cached answer. */
  newQueryMs: number;
  repeated: LoadResult;
  bareRepeated: LoadResult;
  rssAfterMb: number;
  mixedSeconds: number;
}

async function rssMb(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * Three fresh starts: spawn to the first answer of `/v1/daily/latest`, then at once the first
 * full-history query (enterprise, 5,000 items), each a median; and a bare server's start.
 */
async function startTimes(
  publicDir: string,
  env: Record<string, string>,
  keyed: { headers: Record<string, string> },
  bareFile: string,
) {
  const picks: number[] = [];
  const full: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 3; i++) {
    let started = performance.now();
    const server = await startPicksServer(publicDir, env);
    await (await fetch(`${server.url}/v1/daily/latest`)).arrayBuffer();
    picks.push(performance.now() - started);
    started = performance.now();
    await (await fetch(`${server.url}${FULL}`, keyed)).arrayBuffer();
    full.push(performance.now() - started);
    await server.stop();
    started = performance.now();
    const baseline = await startProcess([BARE, bareFile]);
    await (await fetch(baseline.url)).arrayBuffer();
    bare.push(performance.now() - started);
    await baseline.stop();
  }
  return { startMs: median(picks), firstFullMs: median(full), bareStartMs: median(bare) };
}

export async function runHistoryBench(root: string, seconds: number): Promise<HistoryFigures> {
  const publicDir = join(root, "history", "public");
  await publishYear({ publicDir, days: 3650, lastDate: LAST });
  const env = { STATE_DIR: join(root, "state-history") };
  const key = await enterpriseKey(env, "history");
  const keyed = { headers: { "x-api-key": key } };
  const latestFile = join(publicDir, "v1", "daily", "latest.json");
  const { startMs, firstFullMs, bareStartMs } = await startTimes(publicDir, env, keyed, latestFile);

  const server = await startPicksServer(publicDir, env);
  pinServer(server.child.pid);
  try {
    // At rest from the start: what the server holds once its start's garbage is collected.
    const settleSeconds = Number(process.env.BENCH_HISTORY_SETTLE ?? 45);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rssStartMb = await rssMb(server.child.pid);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, settleSeconds - 1) * 1000));
    const rssSettledMb = await rssMb(server.child.pid);
    const full = Buffer.from(await (await fetch(`${server.url}${FULL}`, keyed)).arrayBuffer());
    const again = performance.now();
    await (await fetch(`${server.url}/v1/papers?days=3650&min_reg_fit=2&limit=5000`, keyed)).arrayBuffer();
    const newQueryMs = performance.now() - again;
    const fullFile = join(root, "history-full.json");
    await writeFile(fullFile, full);
    const repeated = await load(`${server.url}${FULL}`, { seconds, connections: 10, ...keyed });
    const bare = await startProcess([BARE, fullFile]);
    pinServer(bare.child.pid);
    const bareRepeated = await load(bare.url, { seconds, connections: 10 }).finally(() => bare.stop());

    // Mixed: full-history and week queries, old days read from their files, the moving files.
    const mixedSeconds = Math.max(seconds, Number(process.env.BENCH_HISTORY_SECONDS ?? 30));
    const oldDay = "2019-03-14";
    await Promise.all([
      load(`${server.url}${FULL}`, { seconds: mixedSeconds, connections: 4, ...keyed }),
      load(`${server.url}/v1/papers?days=3650&axis=A6&min_score=3&limit=5000`, {
        seconds: mixedSeconds,
        connections: 2,
        ...keyed,
      }),
      load(`${server.url}/v1/papers?days=7`, { seconds: mixedSeconds, connections: 10, ...keyed }),
      load(`${server.url}/v1/daily/${oldDay}`, { seconds: mixedSeconds, connections: 4 }),
      load(`${server.url}/v1/recent`, { seconds: mixedSeconds, connections: 4 }),
    ]);
    const rssAfterMb = await rssMb(server.child.pid);
    return {
      startMs,
      bareStartMs,
      firstFullMs,
      rssStartMb,
      rssSettledMb,
      settleSeconds,
      fullBytes: full.byteLength,
      newQueryMs,
      repeated,
      bareRepeated,
      rssAfterMb,
      mixedSeconds,
    };
  } finally {
    await server.stop();
  }
}

/** The report's lines, each with its target. */
export function historyLines(figures: HistoryFigures): string[] {
  const { repeated, bareRepeated } = figures;
  return [
    `history (3,650 days): start to first answer ${Math.round(figures.startMs)} ms, median of 3 ` +
      `(a bare node:http server: ${Math.round(figures.bareStartMs)} ms)  (target < 1,000 ms)`,
    `history: full-history enterprise query sent at once after that first answer: ` +
      `${Math.round(figures.firstFullMs)} ms, median of 3, for ${figures.fullBytes} bytes  (target < 50 ms)`,
    `history: RSS 1 s after the start ${figures.rssStartMb.toFixed(0)} MB; settled, after ` +
      `${figures.settleSeconds} s at rest, ${figures.rssSettledMb.toFixed(0)} MB  (target < 150 MB settled)`,
    `history: a new full-history query, uncached: ${Math.round(figures.newQueryMs)} ms  (target < 50 ms)`,
    `history: the same repeated at 10 connections: ${Math.round(repeated.rps)} req/s = ` +
      `${(repeated.rps / bareRepeated.rps).toFixed(2)} of the bare baseline (${Math.round(bareRepeated.rps)} req/s ` +
      `for the same bytes), non-2xx ${repeated.non2xx}  (target >= 1,000 req/s)`,
    `history: RSS after ${figures.mixedSeconds} s of mixed load with full-history queries ` +
      `${figures.rssAfterMb.toFixed(0)} MB  (target < 250 MB)`,
  ];
}

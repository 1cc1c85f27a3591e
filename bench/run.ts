// `npm run bench`: every figure is printed next to a baseline measured in the same run, because
// absolute numbers on these small shared machines drift from one minute to the next.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startProcess } from "../test/helpers/processes.ts";
import { load } from "./load.ts";
import { runScorerBench } from "./scorer.ts";

const run = promisify(execFile);
const PICKS = fileURLToPath(new URL("../bin/picks.js", import.meta.url));
const BARE = fileURLToPath(new URL("./bare-server.mjs", import.meta.url));
const LISTING = fileURLToPath(
  new URL("../../shared/fixtures/candidates/listing-2026-06-12-314-rows-250-unique.jsonl", import.meta.url),
);
const seconds = Number(process.env.BENCH_SECONDS ?? 6);

const figures: string[] = [];
function report(line: string) {
  figures.push(line);
  console.log(line);
}

async function curateWallTime(root: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await run(process.execPath, [
      PICKS,
      "curate",
      "--source",
      `file:${LISTING}`,
      "--out",
      join(root, "public"),
      "--runs",
      join(root, "runs"),
    ]);
    times.push(performance.now() - started);
  }
  return Math.min(...times);
}

async function snapshotThroughput(publicDir: string) {
  const latest = join(publicDir, "v1", "daily", "latest.json");
  const bare = await startProcess([BARE, latest]);
  const baseline = await load(bare.url, { seconds });
  await bare.stop();
  const picks = await startProcess([PICKS, "serve", "--port", "0", "--public", publicDir]);
  const measured = await load(`${picks.url}/v1/daily/latest`, { seconds });
  await picks.stop();
  return { baseline, measured };
}

const root = await mkdtemp(join(tmpdir(), "picks-bench-"));
try {
  const wall = await curateWallTime(root);
  report(
    `curate --source file: (250 candidates), best of 3, Node start included: ${(wall / 1000).toFixed(2)} s  (target < 1.5 s)`,
  );

  for (const figure of runScorerBench()) {
    report(
      `scoring ${figure.candidates} candidates: ${Math.round(figure.perSecond)} candidates/s  (target >= 20,000/s)`,
    );
  }

  const { baseline, measured } = await snapshotThroughput(join(root, "public"));
  report(
    `baseline bare node:http, same bytes, 50 connections: ${Math.round(baseline.rps)} req/s, p99 ${baseline.p99} ms`,
  );
  report(
    `GET /v1/daily/latest: ${Math.round(measured.rps)} req/s = ${(measured.rps / baseline.rps).toFixed(2)} of baseline, ` +
      `p99 ${measured.p99} ms, errors ${measured.errors + measured.non2xx}  (target >= 0.70, p99 < 20 ms)`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}

// The `origin` section of `npm run bench`: publishing to an S3-compatible bucket (moto's real S3 API
// on loopback, behind a recording proxy that counts the PUTs) and `picks serve --snapshots` starting
// from a bucket, beside the same server starting from a folder.

import { cp, mkdtemp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { motoSkipReason, newBucket, s3Env, startMoto } from "../test/helpers/moto.ts";
import { runPicks, startProcess } from "../test/helpers/processes.ts";
import { curateListingArgs } from "../test/helpers/published.ts";
import { startS3Proxy } from "../test/helpers/s3-proxy.ts";
import { publishYear } from "../test/server/mcp/year-site.ts";
import { median } from "./median.ts";

const PUBLIC = new URL("../public/", import.meta.url).pathname;

async function rssMb(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

interface StartFigures {
  firstMs: number;
  rssMb: number;
}

/** Spawn to the first 200 of `/v1/daily/latest`, and RSS a second later; the median of three starts. */
async function startFigures(args: string[], env: Record<string, string>): Promise<StartFigures> {
  const first: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const server = await startProcess(["bin/picks.js", "serve", "--port", "0", ...args], {
      ...process.env,
      ...env,
    });
    try {
      let status = 0;
      while (status !== 200) {
        status = (await fetch(`${server.url}/v1/daily/latest`)).status;
      }
      first.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      rss.push(await rssMb(server.child.pid));
    } finally {
      await server.stop();
    }
  }
  return { firstMs: median(first), rssMb: median(rss) };
}

async function publishTimed(to: string, from: string, env: Record<string, string>) {
  const started = performance.now();
  const done = await runPicks(["publish", "--to", to, "--from", from, "--json"], { ...process.env, ...env });
  if (done.code !== 0) throw new Error(`picks publish failed: ${done.stderr}`);
  const result = JSON.parse(done.stdout) as { uploaded: number; seconds: number; bytes: number };
  return { wallMs: performance.now() - started, ...result };
}

export async function runOriginBench(root: string): Promise<string[]> {
  const skip = motoSkipReason();
  if (skip) return [`origin: skipped (${skip})`];
  const moto = await startMoto();
  const proxy = await startS3Proxy(moto.endpoint);
  const env = { ...s3Env(proxy.endpoint), STATE_STORE: "memory" };
  const lines: string[] = [];
  try {
    const bare = await runPicks(["--version"]);
    if (bare.code !== 0) throw new Error(bare.stderr);
    const versionStarted = performance.now();
    await runPicks(["--version"]);
    const cliMs = performance.now() - versionStarted;

    for (const years of [1, 10]) {
      const publicDir = join(await mkdtemp(join(root, `origin-${years}y-`)), "public");
      await publishYear({ publicDir, days: 365 * years, lastDate: "2026-11-20" });
      await cp(join(PUBLIC, "index.html"), join(publicDir, "index.html"));
      await cp(join(PUBLIC, "assets"), join(publicDir, "assets"), { recursive: true });
      const bucket = await newBucket(moto.endpoint, `bench-${years}y`);
      const url = `s3://${bucket}/site`;
      const initial = await publishTimed(url, publicDir, env);
      lines.push(
        `publish ${years} year(s) to an empty bucket: ${initial.uploaded} files, ${(initial.bytes / 1e6).toFixed(1)} MB ` +
          `in ${(initial.wallMs / 1000).toFixed(1)} s`,
      );
      if (years === 1) {
        const runs = join(root, "origin-runs");
        const curated = await runPicks(curateListingArgs(publicDir, runs, "2026-11-23"), {
          ...process.env,
          ...env,
        });
        if (curated.code !== 0) throw new Error(curated.stderr);
        proxy.reset();
        const day = await publishTimed(url, publicDir, env);
        const dayPuts = proxy.counts().PUT ?? 0;
        proxy.reset();
        const same = await publishTimed(url, publicDir, env);
        const samePuts = proxy.counts().PUT ?? 0;
        lines.push(
          `publish a new day: ${day.uploaded} changed files, ${dayPuts} PUTs, ${(day.wallMs / 1000).toFixed(2)} s wall ` +
            `(${day.seconds.toFixed(2)} s in the job; \`picks --version\` alone ${(cliMs / 1000).toFixed(2)} s)  (target < 2 s)`,
        );
        lines.push(
          `re-publish unchanged: ${samePuts} PUTs, ${(same.wallMs / 1000).toFixed(2)} s wall (${same.seconds.toFixed(2)} s in the job)` +
            "  (target < 0.5 s and 0 PUTs)",
        );
      }
      const folder = await startFigures(["--public", publicDir], env);
      const fromBucket = await startFigures(
        ["--snapshots", url, "--public", await mkdtemp(join(root, "empty-"))],
        env,
      );
      lines.push(
        `serve ${years} year(s): first 200 from the bucket ${(fromBucket.firstMs / 1000).toFixed(2)} s, from a folder ` +
          `${(folder.firstMs / 1000).toFixed(2)} s; RSS ${fromBucket.rssMb.toFixed(0)} MB against ${folder.rssMb.toFixed(0)} MB ` +
          `(${((fromBucket.rssMb / folder.rssMb - 1) * 100).toFixed(0)} %)` +
          (years === 10 ? "  (target: ten years < 10 s, RSS within 10 % of the folder's)" : ""),
      );
    }
  } finally {
    await proxy.close();
    await moto.stop();
  }
  return lines;
}

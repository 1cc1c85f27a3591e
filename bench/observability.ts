import { type ChildProcess, spawn } from "node:child_process";
import { open, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort, stopChild } from "../test/helpers/local-process.ts";
import { PICKS_BIN } from "../test/helpers/processes.ts";
import { enterpriseKey } from "./keys.ts";
import { type LoadResult, load, pinServer } from "./load.ts";
import { median } from "./median.ts";

// The `observability` section: what /metrics and the request log cost a keyed GET /v1/papers, each
// as a ratio to the same server with both off, measured in the same run. The three servers take
// turns, in a rotating order, turn after turn (BENCH_PAIRS, at least 3 here), and the medians are the
// figures: one load on a shared machine can land on another program's burst. BENCH_PICKS_BIN runs another build of the
// program (a bundle made apart from dist/, while dist/ is older than the sources being edited).

interface Served {
  url: string;
  child: ChildProcess;
  stdoutFile: string;
}

type Mode = "off" | "metrics" | "log";

const PROGRAM = process.env.BENCH_PICKS_BIN || PICKS_BIN;

/** `picks serve` with its stdout (the banner, then the request log) written to a file, as under systemd. */
async function serveToFile(
  publicDir: string,
  stdoutFile: string,
  env: Record<string, string>,
): Promise<Served> {
  const out = await open(stdoutFile, "w");
  const child = spawn(process.execPath, [PROGRAM, "serve", "--port", "0", "--public", publicDir], {
    env: { ...process.env, ...env },
    stdio: ["ignore", out.fd, "inherit"],
  });
  await out.close();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const text = await readFile(stdoutFile, "utf8").catch(() => "");
    const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
    if (url) return { url, child, stdoutFile };
    if (child.exitCode !== null) throw new Error(`picks serve exited with ${child.exitCode}: ${text}`);
    if (Date.now() > deadline) throw new Error(`picks serve did not start: ${text}`);
    await sleep(50);
  }
}

/** Scrapes `url` every second while the load runs, as Prometheus would. */
function scrapeEverySecond(url: string): { stop(): Promise<number> } {
  let scrapes = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const answer = await fetch(url).catch(() => null);
      if (answer?.ok) {
        await answer.arrayBuffer();
        scrapes++;
      }
      await sleep(1000);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return scrapes;
    },
  };
}

export async function runObservabilityBench(
  root: string,
  publicDir: string,
  seconds: number,
  pairs: number,
): Promise<string[]> {
  const state = join(root, "state-observability");
  const key = await enterpriseKey({ STATE_DIR: state }, "observability");
  const headers = { "x-api-key": key };
  const runs: Record<Mode, LoadResult[]> = { off: [], metrics: [], log: [] };
  let scraped = 0;
  let logLine = 0;
  const modes: Mode[] = ["off", "metrics", "log"];
  for (let pair = 0; pair < Math.max(3, pairs); pair++) {
    // Each turn starts with the next mode: a mode that always ran first (or right after another)
    // would carry whatever that position costs on this machine.
    for (const mode of [...modes.slice(pair % 3), ...modes.slice(0, pair % 3)]) {
      const metricsPort = await freePort();
      const env: Record<string, string> =
        mode === "metrics"
          ? { STATE_DIR: state, METRICS_PORT: String(metricsPort) }
          : mode === "log"
            ? { STATE_DIR: state, LOG_REQUESTS: "1" }
            : { STATE_DIR: state };
      const stdoutFile = join(root, `observability-${mode}.out`);
      const server = await serveToFile(publicDir, stdoutFile, env);
      pinServer(server.child.pid);
      const scraper =
        mode === "metrics" ? scrapeEverySecond(`http://127.0.0.1:${metricsPort}/metrics`) : null;
      try {
        const result = await load(`${server.url}/v1/papers?days=7`, {
          seconds,
          headers,
          ...(server.child.pid ? { serverPid: server.child.pid } : {}),
        });
        if (result.errors > 0 || result.non2xx > 0) {
          throw new Error(`${mode}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
        }
        runs[mode].push(result);
      } finally {
        if (scraper) scraped += await scraper.stop();
        await stopChild(server.child);
      }
      if (mode === "log") {
        const text = await readFile(stdoutFile, "utf8");
        const lines = text.split("\n").filter((entry) => entry.startsWith("{"));
        logLine = lines.length > 0 ? (await stat(stdoutFile)).size / lines.length : 0;
      }
    }
  }
  const rps = (mode: Mode) => median(runs[mode].map((run) => run.rps));
  const cpu = (mode: Mode) => median(runs[mode].map((run) => run.cpuUsPerRequest ?? Number.NaN));
  const line = (mode: Mode, label: string) =>
    `  ${label}: ${Math.round(rps(mode))} req/s = ${(rps(mode) / rps("off")).toFixed(3)} of both off by req/s, ` +
    `${(cpu("off") / cpu(mode)).toFixed(3)} by server CPU per request (${cpu(mode).toFixed(1)} µs)  (target >= 0.95)`;
  return [
    `GET /v1/papers?days=7, enterprise key, SQLite, medians of ${runs.off.length} turns each:`,
    `  both off: ${Math.round(rps("off"))} req/s, ${cpu("off").toFixed(1)} µs of server CPU per request`,
    line("metrics", `/metrics on (METRICS_PORT, scraped every second: ${scraped} scrapes)`),
    line("log", "request log to a file (LOG_REQUESTS=1)"),
    `  request log: about ${Math.round(logLine)} bytes a line`,
  ];
}

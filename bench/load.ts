import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";

const run = promisify(execFile);

export interface LoadResult {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  connections?: number;
  seconds?: number;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
}

const has = (command: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

// autocannon sharing two cores with the server tops out near 30,000 req/s, so above that it measures
// itself. wrk, pinned to one core while the server is pinned to the other, is not the bottleneck.
const PINNED =
  has("wrk") && has("taskset") && availableParallelism() >= 2 && process.env.BENCH_CLIENT !== "autocannon";
const CLIENT_CORE = "1";
const SERVER_CORE = "0";

/** Which load generator the figures come from, for the report. */
export const LOAD_CLIENT = PINNED
  ? `wrk on core ${CLIENT_CORE}, each server pinned to core ${SERVER_CORE}`
  : "autocannon sharing the cores with the server (install wrk, e.g. `apt-get install wrk`, for pinned figures)";

/** Pins a server process (all its threads) to the server's core when the load generator is pinned. */
export function pinServer(pid: number | undefined): void {
  if (PINNED && pid !== undefined)
    execFileSync("taskset", ["-a", "-p", "-c", SERVER_CORE, String(pid)], { stdio: "ignore" });
}

/** Drives `url` for `seconds` (default 6) after a 1 s warm-up, with 50 connections by default. */
export async function load(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  return PINNED ? loadWithWrk(url, options) : loadWithAutocannon(url, options);
}

async function loadWithAutocannon(url: string, options: LoadOptions): Promise<LoadResult> {
  const base = {
    url,
    connections: options.connections ?? 50,
    headers: options.headers,
    method: (options.method ?? "GET") as "GET",
    body: options.body,
  };
  await autocannon({ ...base, duration: 1 });
  const result = await autocannon({ ...base, duration: options.seconds ?? 6 });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

async function loadWithWrk(url: string, options: LoadOptions): Promise<LoadResult> {
  const args = ["-c", CLIENT_CORE, "wrk", "-t1", `-c${options.connections ?? 50}`, "--latency"];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}: ${value}`);
  if (options.method && options.method !== "GET") args.push("-s", await requestScript(options));
  await run("taskset", [...args, "-d1s", url]);
  const { stdout } = await run("taskset", [...args, `-d${options.seconds ?? 6}s`, url]);
  return parseWrk(stdout);
}

/** wrk sends a body only from a Lua script. */
async function requestScript(options: LoadOptions): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), "rp-wrk-")), "request.lua");
  const headers = Object.entries(options.headers ?? {})
    .map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}\n`)
    .join("");
  await writeFile(
    file,
    `wrk.method = ${JSON.stringify(options.method)}\nwrk.body = ${JSON.stringify(options.body ?? "")}\n${headers}`,
  );
  return file;
}

/** The figures of wrk's report: requests/s, the 99th percentile, socket errors and non-2xx answers. */
export function parseWrk(report: string): LoadResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(report)?.[1]);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(report);
  const scale = { us: 0.001, ms: 1, s: 1000 } as const;
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(report);
  if (!Number.isFinite(rps) || !p99) throw new Error(`Expected a wrk report, got: ${report.slice(0, 300)}`);
  return {
    rps,
    p99: Number(p99[1]) * scale[p99[2] as keyof typeof scale],
    errors: errors ? errors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(report)?.[1] ?? 0),
  };
}

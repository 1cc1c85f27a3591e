import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";
import { cpuMsOf } from "./process-cpu.ts";

const run = promisify(execFile);

export interface LoadResult {
  rps: number;
  /** Latency percentiles in ms. */
  p50: number;
  p99: number;
  p999: number;
  /** Requests completed in the measured window. */
  requests: number;
  errors: number;
  non2xx: number;
  /** The server's CPU (user + system) per request in µs, when its pid was given. */
  cpuUsPerRequest?: number;
}

export interface LoadOptions {
  connections?: number;
  seconds?: number;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  /** The server's process, whose CPU time per request the result then carries. */
  serverPid?: number;
  /**
   * Requests per second to offer instead of as many as the server takes: with wrk each connection
   * waits connections/rate seconds after an answer before its next request, so the figure is the
   * latency at that load rather than the queue of a saturated server.
   */
  rate?: number;
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

/** Adds the server's CPU per request over `measured`, which must be the measured window alone. */
async function withCpu(pid: number | undefined, measured: () => Promise<LoadResult>): Promise<LoadResult> {
  if (pid === undefined) return measured();
  const before = await cpuMsOf(pid);
  const result = await measured();
  const cpuMs = (await cpuMsOf(pid)) - before;
  return result.requests > 0 ? { ...result, cpuUsPerRequest: (cpuMs * 1000) / result.requests } : result;
}

async function loadWithAutocannon(url: string, options: LoadOptions): Promise<LoadResult> {
  const base = {
    url,
    connections: options.connections ?? 50,
    headers: options.headers,
    method: (options.method ?? "GET") as "GET",
    body: options.body,
    ...(options.rate ? { overallRate: options.rate } : {}),
  };
  await autocannon({ ...base, duration: 1 });
  return withCpu(options.serverPid, async () => {
    const result = await autocannon({ ...base, duration: options.seconds ?? 6 });
    return {
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      p999: result.latency.p99_9,
      requests: result.requests.total,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
    };
  });
}

async function loadWithWrk(url: string, options: LoadOptions): Promise<LoadResult> {
  const args = ["-c", CLIENT_CORE, "wrk", "-t1", `-c${options.connections ?? 50}`, "--latency"];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}: ${value}`);
  args.push("-s", await requestScript(options, options.connections ?? 50));
  await run("taskset", [...args, "-d1s", url]);
  return withCpu(options.serverPid, async () => {
    const { stdout } = await run("taskset", [...args, `-d${options.seconds ?? 6}s`, url]);
    return parseWrk(stdout);
  });
}

// wrk's --latency report stops at the 99th percentile; its done() hook reads any percentile (in µs).
const PERCENTILES = `
done = function(summary, latency, requests)
  io.write(string.format("percentiles-us %d %d %d\\n", latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
`;

/** wrk sends a body only from a Lua script; the script also prints p50, p99 and p99.9, and paces. */
async function requestScript(options: LoadOptions, connections: number): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), "rp-wrk-")), "request.lua");
  const headers = Object.entries(options.headers ?? {})
    .map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}\n`)
    .join("");
  const request =
    options.method && options.method !== "GET"
      ? `wrk.method = ${JSON.stringify(options.method)}\nwrk.body = ${JSON.stringify(options.body ?? "")}\n${headers}`
      : "";
  // wrk's delay() is in whole milliseconds, after each answer.
  const pace = options.rate
    ? `delay = function() return ${Math.max(1, Math.round((connections / options.rate) * 1000))} end\n`
    : "";
  await writeFile(file, `${request}${pace}${PERCENTILES}`);
  return file;
}

/** The figures of wrk's report: requests/s, percentiles, socket errors and non-2xx answers. */
export function parseWrk(report: string): LoadResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(report)?.[1]);
  const percentiles = /percentiles-us (\d+) (\d+) (\d+)/.exec(report);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(report);
  if (!Number.isFinite(rps) || !percentiles) {
    throw new Error(`Expected a wrk report, got: ${report.slice(0, 300)}`);
  }
  const ms = (index: number) => Number(percentiles[index]) / 1000;
  return {
    rps,
    p50: ms(1),
    p99: ms(2),
    p999: ms(3),
    requests: Number(/(\d+) requests in/.exec(report)?.[1] ?? 0),
    errors: errors ? errors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(report)?.[1] ?? 0),
  };
}

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { findOnPath, freePort, stopChild } from "./local-process.ts";

// Debian's `prometheus` package for the metrics tests: promtool to check what the service writes,
// and a real Prometheus on loopback to scrape a running server.

/** Why the promtool checks cannot run here, or null. Only a missing binary is a reason. */
export function promtoolSkipReason(): string | null {
  return findOnPath("promtool")
    ? null
    : "promtool is not on PATH: Prometheus format checks skipped (apt-get install prometheus)";
}

/** Why the Prometheus scrape test cannot run here, or null. */
export function prometheusSkipReason(): string | null {
  return findOnPath("prometheus")
    ? null
    : "prometheus is not on PATH: the real-scrape test skipped (apt-get install prometheus)";
}

/** `promtool <args>` with `input` on stdin: its exit code and output. */
export function promtool(args: string[], input?: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile("promtool", args, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
    child.stdin?.end(input ?? "");
  });
}

export interface RunningPrometheus {
  url: string;
  /** An instant query's single value, or null when the result is empty. */
  query(expression: string): Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts Prometheus on a free loopback port, scraping `target` (host:port) every second. */
export async function startPrometheus(target: string, metricsPath = "/metrics"): Promise<RunningPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), "picks-prometheus-"));
  const config = join(dir, "prometheus.yml");
  await writeFile(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "scrape_configs:",
      "  - job_name: picks",
      `    metrics_path: ${metricsPath}`,
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${stderr}`);
    const ready = await fetch(`${url}/-/ready`).catch(() => null);
    if (ready?.ok) break;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`prometheus did not get ready: ${stderr}`);
    }
    await sleep(100);
  }
  return {
    url,
    async query(expression) {
      const answer = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`);
      const body = (await answer.json()) as {
        status: string;
        data: { result: Array<{ value: [number, string] }> };
      };
      if (body.status !== "success") throw new Error(`query ${expression} failed: ${JSON.stringify(body)}`);
      const first = body.data.result[0];
      return first ? Number(first.value[1]) : null;
    },
    stop: () => stopChild(child),
  };
}

/** Polls `read` until it returns `expected` or `ms` pass; returns the last value read. */
export async function waitFor<T>(read: () => Promise<T>, expected: T, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (value !== expected && Date.now() < deadline) {
    await sleep(200);
    value = await read();
  }
  return value;
}

import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { request } from "node:http";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestLine } from "../../server/metrics/request-log.ts";
import { freePort, stopChild } from "../helpers/local-process.ts";
import {
  type Collecting,
  jsonLines,
  PICKS_BIN,
  runPicks,
  type Started,
  startCollecting,
  startProcess,
} from "../helpers/processes.ts";
import {
  prometheusSkipReason,
  promtool,
  promtoolSkipReason,
  startPrometheus,
  waitFor,
} from "../helpers/prometheus.ts";
import { publishSampleDays } from "../helpers/published.ts";

// /metrics and the request log against real `picks serve` processes, checked by Debian's promtool
// and scraped by a real Prometheus. Skipped only where the binaries are missing; CI installs them.

const TOKEN = "test-metrics-token-0123456789";

const promtoolSkip = promtoolSkipReason();
const prometheusSkip = prometheusSkipReason();
for (const reason of [promtoolSkip, prometheusSkip]) if (reason) console.warn(reason);

let publicDir: string;
beforeAll(async () => {
  ({ publicDir } = await publishSampleDays());
});

const stateDir = () => mkdtemp(join(tmpdir(), "picks-metrics-"));

async function serve(env: Record<string, string>, args: string[] = []): Promise<Started> {
  return startProcess([PICKS_BIN, "serve", "--port", "0", "--public", publicDir, ...args], {
    ...process.env,
    STATE_DIR: await stateDir(),
    ...env,
  });
}

async function issueKey(url: string): Promise<string> {
  const answer = await fetch(`${url}/v1/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "ops@example.org", label: "metrics" }),
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { key: string }).key;
}

/** A GET on a connection of its own, so that a cluster's primary hands each to the next worker. */
function getOnNewConnection(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: "close", ...headers } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

async function scrape(url: string, token?: string): Promise<string> {
  const answer = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toContain("text/plain");
  return answer.text();
}

/** The value of one series in a scrape, by its exact name and labels; 0 when absent. */
function sampleOf(text: string, series: string): number {
  const line = text.split("\n").find((entry) => entry.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const PAPERS_COUNT =
  'http_server_request_duration_seconds_count{route="/v1/papers",method="GET",status_class="2xx"}';

const seriesOf = (text: string): string[] =>
  text.split("\n").filter((line) => line !== "" && !line.startsWith("#"));

describe("METRICS_PORT: the metrics on a listener of their own", () => {
  let server: Started;
  let metricsUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    server = await serve({ METRICS_PORT: String(port) });
  });
  afterAll(async () => server?.stop());

  it.skipIf(promtoolSkip)("a scrape passes `promtool check metrics`", async () => {
    const key = await issueKey(server.url);
    await fetch(`${server.url}/v1/daily/latest`);
    await fetch(`${server.url}/v1/papers`, { headers: { "x-api-key": key } });
    await fetch(`${server.url}/v1/me`, { headers: { "x-api-key": key } });
    await fetch(`${server.url}/no/such/path`);
    const text = await scrape(metricsUrl);
    for (const name of [
      "http_server_request_duration_seconds_bucket",
      "picks_quota_refusals_total",
      "picks_active_keys",
      "picks_mcp_tool_calls_total",
      "picks_verify_answers_total",
      "picks_webhook_delivery_attempts_total",
      "picks_queue_depth",
      "picks_newest_day_age_seconds",
      "picks_snapshots_held",
      "process_resident_memory_bytes",
      "process_cpu_seconds_total",
      "nodejs_eventloop_lag_seconds",
      "nodejs_gc_duration_seconds",
    ]) {
      expect(text, name).toContain(`${name}`);
    }
    expect(sampleOf(text, PAPERS_COUNT)).toBe(1);
    expect(sampleOf(text, "picks_snapshots_held")).toBe(3);
    const checked = await promtool(["check", "metrics"], text);
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
  });

  it("1,000 requests to random unknown paths add no series beyond a bounded set", async () => {
    const before = seriesOf(await scrape(metricsUrl));
    const written: string[] = [];
    const methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];
    const send = async (index: number) => {
      const word = randomBytes(6).toString("hex");
      written.push(word);
      const paths = [
        `/${word}`,
        `/v1/${word}/${word}?q=${word}`,
        `/v1/daily/${word}`,
        `/v1/papers/${word}`,
        `/assets/${word}.js`,
        `/.well-known/${word}`,
        `/%${word}`,
      ];
      const answer = await fetch(`${server.url}${paths[index % paths.length]}`, {
        method: methods[index % methods.length] as string,
      });
      await answer.arrayBuffer();
    };
    for (let start = 0; start < 1000; start += 25) {
      await Promise.all(Array.from({ length: 25 }, (_, offset) => send(start + offset)));
    }
    const text = await scrape(metricsUrl);
    const after = seriesOf(text);
    for (const word of written) expect(text).not.toContain(word);
    const routes = new Set(after.flatMap((line) => /route="([^"]*)"/.exec(line)?.[1] ?? []));
    expect([...routes].filter((route) => !route.startsWith("/") && route !== "unmatched")).toEqual([]);
    // Seven methods by a few status classes on a few templates: 17 lines per histogram series.
    const added = after.length - before.length;
    expect(added).toBeLessThanOrEqual(17 * 7 * 3 * 4);
    // And the next thousand add none at all.
    for (let start = 0; start < 1000; start += 25) {
      await Promise.all(Array.from({ length: 25 }, (_, offset) => send(start + offset)));
    }
    const again = seriesOf(await scrape(metricsUrl));
    expect(again.filter((line) => line.startsWith("http_server")).length).toBe(
      after.filter((line) => line.startsWith("http_server")).length,
    );
  });

  it("answers nothing but GET /metrics", async () => {
    const base = metricsUrl.replace(/\/metrics$/, "");
    const other = await fetch(`${base}/v1/papers`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ detail: "Not Found" });
    const posted = await fetch(metricsUrl, { method: "POST" });
    expect(posted.status).toBe(405);
  });

  it("serves no /metrics on the public port", async () => {
    const answer = await fetch(`${server.url}/metrics`);
    expect(answer.status).toBe(404);
  });
});

describe("METRICS_TOKEN: the metrics on the public port behind a bearer token", () => {
  let server: Started;
  beforeAll(async () => {
    server = await serve({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => server?.stop());

  it("refuses a scrape without the token, or with another", async () => {
    const refused: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer not-the-token-at-all" },
      { authorization: TOKEN },
    ];
    for (const headers of refused) {
      const answer = await fetch(`${server.url}/metrics`, { headers });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toContain("Bearer");
      expect(Object.keys((await answer.json()) as object)).toEqual(["detail"]);
    }
  });

  it("answers the token's bearer", async () => {
    const text = await scrape(`${server.url}/metrics`, TOKEN);
    expect(text).toContain("http_server_request_duration_seconds");
    expect(text).toContain('route="/metrics"');
  });
});

describe("bad metrics settings stop `picks serve` with exit code 2", () => {
  it("METRICS_PORT equal to the public port without a token", async () => {
    const port = await freePort();
    const result = await runPicks(["serve", "--port", String(port), "--public", publicDir], {
      ...process.env,
      STATE_DIR: await stateDir(),
      METRICS_PORT: String(port),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("METRICS_PORT");
    expect(result.stderr).toContain("METRICS_TOKEN");
  });

  it("METRICS_PORT taken by another program", async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const taken = (holder.address() as { port: number }).port;
    try {
      const result = await runPicks(["serve", "--port", "0", "--public", publicDir], {
        ...process.env,
        STATE_DIR: await stateDir(),
        METRICS_PORT: String(taken),
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`METRICS_PORT ${taken}`);
      expect(result.stderr).toContain("taken");
    } finally {
      holder.close();
    }
  });

  it("a METRICS_PORT that is not a port, or a short token", async () => {
    for (const env of [{ METRICS_PORT: "http" }, { METRICS_TOKEN: "short" }, { LOG_REQUESTS: "yes" }]) {
      const result = await runPicks(["serve", "--port", "0", "--public", publicDir], {
        ...process.env,
        STATE_DIR: await stateDir(),
        ...env,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(Object.keys(env)[0] as string);
    }
  });
});

/** `picks serve` with its stdout collected: the banner, then the request log. */
async function serveCollecting(env: Record<string, string>, args: string[]): Promise<Collecting> {
  return startCollecting(
    [PICKS_BIN, "serve", "--port", "0", "--public", publicDir, ...args],
    { ...process.env, STATE_DIR: await stateDir(), ...env },
    "inherit",
  );
}

type LogLine = RequestLine & { pid: number; time: string };

const logLines = (stdout: string): LogLine[] => jsonLines<LogLine>(stdout);

describe("LOG_REQUESTS=1: one JSON line per request", () => {
  it("has the route template, status, duration, bytes, the key's id and tier, never the key", async () => {
    const server = await serveCollecting({ LOG_REQUESTS: "1" }, []);
    try {
      const key = await issueKey(server.url);
      await fetch(`${server.url}/v1/papers?days=3`, { headers: { "x-api-key": key } });
      await fetch(`${server.url}/v1/daily/2026-01-01`);
      await fetch(`${server.url}/v1/me`, { headers: { "x-api-key": key } });
      // The same file twice on one kept-alive connection: each line counts its own answer's bytes.
      for (let i = 0; i < 2; i++) await (await fetch(`${server.url}/v1/axes`)).arrayBuffer();
      const lines = await waitFor(async () => logLines(server.stdout()).length, 6, 5_000).then(() =>
        logLines(server.stdout()),
      );
      const axes = lines.filter((line) => line.route === lines.at(-1)?.route);
      expect(axes).toHaveLength(2);
      expect(axes[0]?.bytes).toBeGreaterThan(100);
      expect(axes[1]?.bytes).toBe(axes[0]?.bytes);
      expect(server.stdout()).not.toContain(key);
      const papers = lines.find((line) => line.route === "/v1/papers");
      expect(papers).toMatchObject({ method: "GET", status: 200, tier: "free", client: "127.0.0.1" });
      expect(papers?.key_id).toMatch(/^key_[0-9a-f]{16}$/);
      expect(papers?.bytes).toBeGreaterThan(100);
      expect(papers?.duration_ms).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(papers?.time ?? ""))).toBe(false);
      expect(lines.find((line) => line.route === "/v1/daily/:date")).toMatchObject({ key_id: null });
      expect(lines.find((line) => line.route === "/v1/me")).toMatchObject({ key_id: papers?.key_id });
    } finally {
      await stopChild(server.child);
    }
  });
});

describe("`picks serve --workers 2`: one scrape answers for every process", () => {
  const REQUESTS = 40;

  async function spreadAndCount(env: Record<string, string>, scrapeUrl: (url: string) => string) {
    const server = await serveCollecting({ LOG_REQUESTS: "1", ...env }, ["--workers", "2"]);
    try {
      const key = await issueKey(server.url);
      for (let sent = 0; sent < REQUESTS; sent++) {
        expect(await getOnNewConnection(`${server.url}/v1/papers`, { "x-api-key": key })).toBe(200);
      }
      const text = await scrape(scrapeUrl(server.url), TOKEN);
      expect(sampleOf(text, "picks_server_processes")).toBe(2);
      expect(sampleOf(text, PAPERS_COUNT)).toBe(REQUESTS);
      // The requests really went to both processes: their log lines carry two process ids.
      await waitFor(
        async () => logLines(server.stdout()).filter((line) => line.route === "/v1/papers").length,
        REQUESTS,
        5_000,
      );
      const pids = new Set(
        logLines(server.stdout())
          .filter((line) => line.route === "/v1/papers")
          .map((line) => line.pid),
      );
      expect(pids.size).toBe(2);
      if (!promtoolSkip) expect((await promtool(["check", "metrics"], text)).code).toBe(0);
    } finally {
      await stopChild(server.child);
    }
  }

  it("on METRICS_PORT, served by the primary", async () => {
    const port = await freePort();
    await spreadAndCount(
      { METRICS_PORT: String(port), METRICS_TOKEN: TOKEN },
      () => `http://127.0.0.1:${port}/metrics`,
    );
  });

  it("on the public port, whichever worker the scrape reaches", async () => {
    await spreadAndCount({ METRICS_TOKEN: TOKEN }, (url) => `${url}/metrics`);
  });
});

describe.skipIf(prometheusSkip)("a real Prometheus scraping `picks serve`", () => {
  it("reports up == 1 and counts every /v1/papers request sent", async () => {
    const port = await freePort();
    const server = await serve({ METRICS_PORT: String(port) });
    const prometheus = await startPrometheus(`127.0.0.1:${port}`);
    try {
      expect(await waitFor(() => prometheus.query('up{job="picks"}'), 1)).toBe(1);
      const key = await issueKey(server.url);
      const sent = 17;
      for (let index = 0; index < sent; index++) {
        const answer = await fetch(`${server.url}/v1/papers?limit=${1 + (index % 5)}`, {
          headers: { "x-api-key": key },
        });
        expect(answer.status).toBe(200);
        await answer.arrayBuffer();
      }
      const counted = () =>
        prometheus.query('sum(http_server_request_duration_seconds_count{job="picks",route="/v1/papers"})');
      expect(await waitFor(counted, sent)).toBe(sent);
    } finally {
      await prometheus.stop();
      await server.stop();
    }
  });
});

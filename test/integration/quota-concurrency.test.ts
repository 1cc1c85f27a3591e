import { mkdtemp, readFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PICKS_BIN, type Started, startPicksServer, startProcess } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";
import { redisSkipReason, startRedis } from "../helpers/redis.ts";

const keyRequest = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email: "load@example.org", label: "load" }),
  });

function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** The same exactness checks against one or more server processes sharing one state. */
function exactnessSuite(start: () => Promise<Started[]>) {
  let servers: Started[];
  beforeAll(async () => {
    servers = await start();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });
  const urlOf = (i: number) => (servers[i % servers.length] as Started).url;

  it("20 concurrent POST /v1/keys from one address give exactly one 201", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => keyRequest(urlOf(i))));
    expect(tally(answers.map((answer) => answer.status))).toEqual({ 201: 1, 429: 19 });
  });

  it("300 concurrent calls with one free key give exactly 100 answers and 200 refusals", async () => {
    const key = await keyFromAnotherAddress(urlOf(0));
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(`${urlOf(i)}/v1/papers?days=1&limit=1`, { headers: { "x-api-key": key } }),
      ),
    );
    expect(tally(answers.map((answer) => answer.status))).toEqual({ 200: 100, 429: 200 });
    const refused = answers.find((answer) => answer.status === 429);
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    const me = (await (await fetch(`${urlOf(1)}/v1/me`, { headers: { "x-api-key": key } })).json()) as {
      usage: { used: number; remaining: number };
    };
    expect(me.usage).toMatchObject({ used: 100, remaining: 0 });
  });

  it("a forged X-Forwarded-For does not get a second key", async () => {
    const forged = await keyRequest(urlOf(0), { "x-forwarded-for": "203.0.113.77" });
    expect(forged.status).toBe(429);
  });
  return () => servers;
}

/** The cluster really runs `count` server processes under its primary. */
function expectWorkers(servers: () => Started[], count: number) {
  it(`runs ${count} server processes`, async () => {
    const primary = servers()[0]?.child.pid;
    const children = await readFile(`/proc/${primary}/task/${primary}/children`, "utf8");
    expect(children.trim().split(/\s+/)).toHaveLength(count);
  });
}

/**
 * A free key for a second client: this address already has its key, so connect from another
 * loopback address, which the server counts as a different client.
 */
function keyFromAnotherAddress(url: string): Promise<string> {
  const body = JSON.stringify({ email: "q@example.org", label: "quota" });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/keys`,
      { method: "POST", localAddress: "127.0.0.2", headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () => {
          if (res.statusCode === 201) resolve((JSON.parse(text) as { key: string }).key);
          else reject(new Error(`expected 201, got ${res.statusCode}: ${text}`));
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let publicDir: string;
beforeAll(async () => {
  ({ publicDir } = await publishSampleDays());
});

const stateDir = () => mkdtemp(join(tmpdir(), "picks-state-"));

describe("one server on the SQLite store", () => {
  exactnessSuite(async () => [await startPicksServer(publicDir, { STATE_DIR: await stateDir() })]);
});

describe("two servers on one SQLite database", () => {
  exactnessSuite(async () => {
    const env = { STATE_DIR: await stateDir() };
    return Promise.all([
      startPicksServer(publicDir, env),
      startPicksServer(publicDir, { ...env, WORKER: "off" }),
    ]);
  });
});

describe("one server of two cluster workers (`--workers 2`) on SQLite", () => {
  const servers = exactnessSuite(async () => [
    await startProcess([PICKS_BIN, "serve", "--port", "0", "--public", publicDir, "--workers", "2"], {
      ...process.env,
      STATE_DIR: await stateDir(),
    }),
  ]);
  expectWorkers(servers, 2);
});

// Skipped only on a developer machine without redis-server; CI installs it, so there it must run.
const skip = redisSkipReason() !== null && !process.env.CI;
describe.skipIf(skip)("two servers sharing one redis-server", () => {
  let stopRedis: () => Promise<void>;
  afterAll(async () => stopRedis?.());
  exactnessSuite(async () => {
    const redis = await startRedis();
    stopRedis = redis.stop;
    return Promise.all([
      startPicksServer(publicDir, { REDIS_URL: redis.url }),
      startPicksServer(publicDir, { REDIS_URL: redis.url }),
    ]);
  });
});

describe.skipIf(skip)("one server of two cluster workers (`--workers 2`) on Redis", () => {
  let stopRedis: () => Promise<void>;
  afterAll(async () => stopRedis?.());
  const servers = exactnessSuite(async () => {
    const redis = await startRedis();
    stopRedis = redis.stop;
    const args = [PICKS_BIN, "serve", "--port", "0", "--public", publicDir, "--workers", "2"];
    return [await startProcess(args, { ...process.env, REDIS_URL: redis.url })];
  });
  expectWorkers(servers, 2);
});

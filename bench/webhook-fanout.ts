// One event to 1,000 endpoints (100 pro keys, 10 each) on a loopback receiver: the time until all are
// delivered (target < 5 s), and the keyed GET /v1/papers?days=7 throughput of the server while it
// delivers against idle (target: within 20%).
//
//   node --import tsx bench/webhook-fanout.ts      (or the `webhooks` section of `npm run bench`)
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createKeyService } from "../server/access/key-service.ts";
import { createSqliteStore } from "../server/store/sqlite-store.ts";
import { publishEvent } from "../server/webhooks/publish-event.ts";
import { createWebhookService } from "../server/webhooks/webhook-service.ts";
import { publishSampleDays } from "../test/helpers/published.ts";
import { LOAD_CLIENT, load, pinServer } from "./load.ts";
import { offMainCpuMsOf } from "./process-cpu.ts";

const KEYS = 100;
const PER_KEY = 10;
const ENDPOINTS = KEYS * PER_KEY;

/** Runs the fan-out bench and returns its report's lines. */
export async function runWebhookFanoutBench(): Promise<string[]> {
  const received = new Map<string, number>();
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      received.set(id, (received.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const stateDir = await mkdtemp(join(tmpdir(), "picks-bench-hooks-"));
  const { publicDir } = await publishSampleDays();
  const env = { ...process.env, STATE_STORE: "sqlite", STATE_DIR: stateDir, WEBHOOK_ALLOW_LOOPBACK: "1" };
  const server = spawn(
    process.execPath,
    [new URL("../bin/picks.js", import.meta.url).pathname, "serve", "--port", "0", "--public", publicDir],
    { env, stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    server.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(seen);
      if (found?.[1]) resolve(found[1]);
    });
    server.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  pinServer(server.pid);

  // The bench shares the server's database, as `picks keys` does, to set up keys and endpoints fast.
  const store = createSqliteStore({ path: join(stateDir, "picks.db") });
  const keys = createKeyService({ store, prefix: "rp_labs_", now: Date.now });
  const webhooks = createWebhookService(
    { store, now: Date.now, log: () => {} },
    { settings: { allowLoopback: true } },
  );
  for (let k = 0; k < KEYS; k++) {
    const { record } = await keys.issue({ tier: "pro", email: `k${k}@example.org`, label: "bench" });
    for (let e = 0; e < PER_KEY; e++) {
      const made = await webhooks.create(record.id, {
        url: `${receiverUrl}/k${k}/e${e}`,
        events: ["daily.published"],
        description: "",
      });
      if (!made.ok) throw new Error(made.why);
    }
  }
  const reader = (await keys.issue({ tier: "enterprise", email: "reader@example.org", label: "load" })).key;

  let sequence = 0;
  const pid = server.pid as number;
  /**
   * Publishes one event and resolves with the ms until every endpoint received it, and the server's
   * CPU off its serving thread meanwhile (the delivery thread's, nearly all of it): under load that
   * thread gets only what the serving thread leaves, so its CPU per delivery decides the time.
   */
  async function fanOutOnce(): Promise<{ ms: number; cpuMs: number }> {
    const id = `evt_bench_${++sequence}`;
    const cpuBefore = await offMainCpuMsOf(pid);
    const started = performance.now();
    await publishEvent(
      store,
      { id, type: "daily.published", data: { date: "2026-11-23", bench: sequence } },
      Date.now(),
    );
    while ((received.get(id) ?? 0) < ENDPOINTS) await new Promise((resolve) => setTimeout(resolve, 5));
    return { ms: performance.now() - started, cpuMs: (await offMainCpuMsOf(pid)) - cpuBefore };
  }
  // No run to average (no fan-out finished in the window) reads as such, not as "NaN µs".
  const perDelivery = (runs: { cpuMs: number }[]): string =>
    runs.length === 0
      ? "none finished"
      : `${((runs.reduce((sum, run) => sum + run.cpuMs, 0) * 1000) / (runs.length * ENDPOINTS)).toFixed(0)} µs`;

  // The first starts the delivery thread; the next ones give its CPU per delivery.
  const first = await fanOutOnce();
  const idleRuns: { ms: number; cpuMs: number }[] = [];
  for (let n = 0; n < 3; n++) idleRuns.push(await fanOutOnce());

  const target = `${url}/v1/papers?days=7`;
  const headers = { "x-api-key": reader };
  const idle = await load(target, { headers });
  let delivering = true;
  let events = 0;
  const loadedRuns: { ms: number; cpuMs: number }[] = [];
  const background = (async () => {
    while (delivering) {
      loadedRuns.push(await fanOutOnce());
      events += 1;
    }
  })();
  const busy = await load(target, { headers });
  delivering = false;
  await background;

  const duplicates = [...received.values()].filter((count) => count > ENDPOINTS).length;
  const change = ((busy.rps - idle.rps) / idle.rps) * 100;
  const lines: string[] = [];
  lines.push(`webhooks: load client: ${LOAD_CLIENT}`);
  lines.push(
    `webhooks: fan-out of one event to ${ENDPOINTS} endpoints: ${first.ms.toFixed(0)} ms (first), ${idleRuns.map((run) => run.ms.toFixed(0)).join(", ")} ms (next); target < 5000 ms`,
  );
  lines.push(
    `webhooks: fan-outs during the loaded window: ${events}, ${loadedRuns.length === 0 ? "none finished" : `each ${Math.min(...loadedRuns.map((run) => run.ms)).toFixed(0)}..${Math.max(...loadedRuns.map((run) => run.ms)).toFixed(0)} ms`}; target < 5000 ms`,
  );
  lines.push(
    `webhooks: server CPU off the serving thread per delivery: ${perDelivery(idleRuns)} idle (fan-outs 2-4), ${perDelivery(loadedRuns)} under load`,
  );
  lines.push(
    `webhooks: GET /v1/papers?days=7 keyed: idle ${idle.rps.toFixed(0)} req/s (p99 ${idle.p99} ms), delivering ${busy.rps.toFixed(0)} req/s (p99 ${busy.p99} ms): ${change.toFixed(1)}%; target within 20%`,
  );
  lines.push(
    `webhooks: errors ${idle.errors + busy.errors}, non-2xx ${idle.non2xx + busy.non2xx}, events delivered more than once per endpoint: ${duplicates}`,
  );

  server.kill("SIGTERM");
  await store.close();
  receiver.close();
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const line of await runWebhookFanoutBench()) console.log(line);
}

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
import { LOAD_CLIENT, type LoadResult, load, pinServer } from "./load.ts";
import { median } from "./median.ts";
import { niceThreadsCpuMsOf, offMainCpuMsOf } from "./process-cpu.ts";

const KEYS = 100;
const PER_KEY = 10;
const ENDPOINTS = KEYS * PER_KEY;
/** The delivery thread's scheduling priority (cli/worker-command.ts), by which it is told apart. */
const DELIVERY_NICE = 10;
/** Idle and delivering windows of keyed load, alternated: BENCH_PAIRS, three unless set. */
const PAIRS = Math.max(1, Number(process.env.BENCH_PAIRS ?? 3));

interface FanOut {
  started: number;
  ended: number;
  /** CPU of the delivery thread, and of every thread but the serving one, in ms. */
  threadMs: number;
  offMainMs: number;
}

const msOf = (run: FanOut): string => (run.ended - run.started).toFixed(0);

// No run to average (no fan-out finished in the window) reads as such, not as "NaN µs".
const perDelivery = (runs: FanOut[], thread: "threadMs" | "offMainMs"): string =>
  runs.length === 0
    ? "none finished"
    : `${((runs.reduce((sum, run) => sum + run[thread], 0) * 1000) / (runs.length * ENDPOINTS)).toFixed(0)} µs`;

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
   * Publishes one event and resolves with when it started and ended (ms, performance.now()) and the
   * CPU meanwhile of the server's delivery thread (nice 10), and of every thread off its serving one.
   * Under load the delivery thread gets only what the serving thread leaves (about a tenth of the
   * core at nice 10), so its CPU per delivery decides the time.
   */
  async function fanOutOnce(): Promise<FanOut> {
    const id = `evt_bench_${++sequence}`;
    const [threadBefore, offMainBefore] = await Promise.all([
      niceThreadsCpuMsOf(pid, DELIVERY_NICE),
      offMainCpuMsOf(pid),
    ]);
    const started = performance.now();
    await publishEvent(
      store,
      { id, type: "daily.published", data: { date: "2026-11-23", bench: sequence } },
      Date.now(),
    );
    while ((received.get(id) ?? 0) < ENDPOINTS) await new Promise((resolve) => setTimeout(resolve, 5));
    const ended = performance.now();
    const [threadAfter, offMainAfter] = await Promise.all([
      niceThreadsCpuMsOf(pid, DELIVERY_NICE),
      offMainCpuMsOf(pid),
    ]);
    return { started, ended, threadMs: threadAfter - threadBefore, offMainMs: offMainAfter - offMainBefore };
  }

  // The first starts the delivery thread; the next ones give its CPU per delivery.
  const first = await fanOutOnce();
  const idleRuns: FanOut[] = [];
  for (let n = 0; n < 3; n++) idleRuns.push(await fanOutOnce());

  // Idle and delivering windows alternate, `pairs` times: the machine's other load moves the idle
  // keyed rate by a third between runs, and a pair's two windows, back to back, see much the same of
  // it. The change to quote is the median of the pairs'.
  const target = `${url}/v1/papers?days=7`;
  const headers = { "x-api-key": reader };
  const windows: { idle: LoadResult; busy: LoadResult }[] = [];
  const loadedRuns: FanOut[] = [];
  let events = 0;
  for (let pair = 0; pair < PAIRS; pair++) {
    const idle = await load(target, { headers });
    let delivering = true;
    const window: FanOut[] = [];
    const background = (async () => {
      while (delivering) window.push(await fanOutOnce());
    })();
    const from = performance.now();
    const busy = await load(target, { headers });
    const to = performance.now();
    delivering = false;
    await background;
    events += window.length;
    // Only a fan-out that started and ended inside the window (its 1 s warm-up included) ran fully
    // under load; the one still going when the load stopped finished on an idle core.
    loadedRuns.push(...window.filter((run) => run.started >= from && run.ended <= to));
    windows.push({ idle, busy });
  }

  const duplicates = [...received.values()].filter((count) => count > ENDPOINTS).length;
  const changes = windows.map(({ idle, busy }) => ((busy.rps - idle.rps) / idle.rps) * 100);
  const times = loadedRuns.map((run) => run.ended - run.started);
  const lines: string[] = [];
  lines.push(`webhooks: load client: ${LOAD_CLIENT}`);
  lines.push(
    `webhooks: fan-out of one event to ${ENDPOINTS} endpoints: ${msOf(first)} ms (first), ${idleRuns.map(msOf).join(", ")} ms (next); target < 5000 ms`,
  );
  lines.push(
    `webhooks: fan-outs fully under load: ${times.length} of ${events}, ${times.length === 0 ? "none finished" : `median ${median(times).toFixed(0)} ms, ${Math.min(...times).toFixed(0)}..${Math.max(...times).toFixed(0)} ms`}; target < 5000 ms`,
  );
  lines.push(
    `webhooks: CPU per delivery, delivery thread (nice ${DELIVERY_NICE}): ${perDelivery(idleRuns, "threadMs")} idle (fan-outs 2-4), ${perDelivery(loadedRuns, "threadMs")} under load; every thread off the serving one: ${perDelivery(idleRuns, "offMainMs")} idle, ${perDelivery(loadedRuns, "offMainMs")} under load`,
  );
  for (const [index, { idle, busy }] of windows.entries()) {
    lines.push(
      `webhooks: GET /v1/papers?days=7 keyed${PAIRS > 1 ? ` [pair ${index + 1} of ${PAIRS}]` : ""}: idle ${idle.rps.toFixed(0)} req/s (p99 ${idle.p99} ms), delivering ${busy.rps.toFixed(0)} req/s (p99 ${busy.p99} ms): ${(changes[index] as number).toFixed(1)}%`,
    );
  }
  lines.push(
    `webhooks: keyed req/s delivering against idle: ${PAIRS > 1 ? `median of ${PAIRS} pairs ` : ""}${median(changes).toFixed(1)}%; target within 20%`,
  );
  const errors = windows.reduce((sum, { idle, busy }) => sum + idle.errors + busy.errors, 0);
  const non2xx = windows.reduce((sum, { idle, busy }) => sum + idle.non2xx + busy.non2xx, 0);
  lines.push(
    `webhooks: errors ${errors}, non-2xx ${non2xx}, events delivered more than once per endpoint: ${duplicates}`,
  );

  server.kill("SIGTERM");
  await store.close();
  receiver.close();
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const line of await runWebhookFanoutBench()) console.log(line);
}

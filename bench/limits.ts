// CPU per request of what a client can make the server do without spending quota: free MCP methods
// (tools/list, batched) and reads of days older than those held in memory, by Accept-Encoding and
// with If-None-Match. Measured from the server process's own CPU time (/proc/<pid>/stat, user + system),
// which the shared machine's other load does not inflate the way it does throughput.
// Run alone with `node --import tsx bench/limits.ts [path/to/bin/picks.js]`: another checkout's
// program gives its "before" figures on the same site.
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { addDays } from "../pipeline/domain/calendar.ts";
import { encodedEtag } from "../server/http/encoding.ts";
import { etagOf } from "../server/http/prepared.ts";
import { PICKS_BIN, startProcess } from "../test/helpers/processes.ts";
import { publishYear } from "../test/server/mcp/year-site.ts";
import { cpuMsOf } from "./process-cpu.ts";

const LAST = "2026-11-20";
const YEAR = 365;
const REQUESTS = Number(process.env.BENCH_LIMITS_REQUESTS ?? 2000);

export interface LimitFigure {
  name: string;
  /** Server CPU (user + system) per request, in milliseconds. */
  cpuMs: number;
  requests: number;
  statuses: string;
}

async function measure(
  name: string,
  pid: number,
  requests: number,
  send: (i: number) => Promise<Response>,
): Promise<LimitFigure> {
  for (let i = 0; i < Math.min(50, requests); i++) await (await send(i)).arrayBuffer();
  const statuses = new Map<number, number>();
  const before = await cpuMsOf(pid);
  for (let i = 0; i < requests; i++) {
    const answer = await send(i);
    await answer.arrayBuffer();
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  }
  const cpuMs = ((await cpuMsOf(pid)) - before) / requests;
  const shown = [...statuses].map(([status, count]) => `${count}x${status}`).join(" ");
  return { name, cpuMs, requests, statuses: shown };
}

async function freeKey(url: string): Promise<string> {
  const answer = await fetch(`${url}/v1/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.org", label: "limits" }),
  });
  return ((await answer.json()) as { key: string }).key;
}

/** Measures one program (`bin`) serving a year of days; `env` sets its limits. */
export async function runLimitsBench(
  root: string,
  options: { bin?: string; env?: Record<string, string>; label?: string } = {},
): Promise<LimitFigure[]> {
  const publicDir = join(root, "limits-year");
  const published = await access(join(publicDir, "v1")).then(
    () => true,
    () => false,
  );
  if (!published) await publishYear({ publicDir, days: YEAR, lastDate: LAST });
  const env = {
    ...process.env,
    STATE_DIR: await mkdtemp(join(root, "limits-state-")),
    KEY_ISSUE_LIMIT: "1000",
    ...options.env,
  };
  const server = await startProcess(
    [options.bin ?? PICKS_BIN, "serve", "--port", "0", "--public", publicDir],
    env,
  );
  const pid = server.child.pid as number;
  const label = options.label ? `${options.label}: ` : "";
  const figures: LimitFigure[] = [];
  try {
    const key = await freeKey(server.url);
    // A free key whose quota is spent: tools/list costs it nothing either way.
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "labs_stats" },
    });
    const mcpHeaders = { "content-type": "application/json", accept: "application/json", "x-api-key": key };
    for (let i = 0; i < 100; i++) {
      await (
        await fetch(`${server.url}/mcp`, { method: "POST", headers: mcpHeaders, body: call })
      ).arrayBuffer();
    }
    const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
    const mcp = (body: unknown) => () =>
      fetch(`${server.url}/mcp`, { method: "POST", headers: mcpHeaders, body: JSON.stringify(body) });
    figures.push(await measure(`${label}POST /mcp, one tools/list`, pid, 400, mcp(list(1))));
    figures.push(
      await measure(
        `${label}POST /mcp, a batch of 100 tools/list`,
        pid,
        60,
        mcp(Array.from({ length: 100 }, (_, i) => list(i))),
      ),
    );

    // Days 32..365 back are not held in memory: cycle over all of them, as the review did.
    const old = Array.from({ length: YEAR - 31 }, (_, i) => addDays(LAST, -(31 + i)));
    const day = (date: string, headers: Record<string, string>) =>
      fetch(`${server.url}/v1/daily/${date}`, { headers });
    const recent = await day(LAST, {});
    await recent.arrayBuffer();
    for (const coding of ["br", "gzip", "identity"]) {
      figures.push(
        await measure(`${label}GET an old day, Accept-Encoding: ${coding}`, pid, REQUESTS, (i) =>
          day(old[i % old.length] as string, { "accept-encoding": coding }),
        ),
      );
    }
    // The tag of each old day's br form, from its file: a client that has it asks again.
    const tags = new Map<string, string>();
    for (const date of old) {
      const bytes = await readFile(join(publicDir, "v1", "daily", `${date}.json`));
      tags.set(date, encodedEtag(etagOf(bytes), "br"));
    }
    figures.push(
      await measure(`${label}GET an old day, br, If-None-Match of its br form`, pid, REQUESTS, (i) => {
        const date = old[(i * 7) % old.length] as string;
        return day(date, { "accept-encoding": "br", "if-none-match": tags.get(date) as string });
      }),
    );
    figures.push(
      await measure(`${label}GET a recent day, br`, pid, REQUESTS, () =>
        day(LAST, { "accept-encoding": "br" }),
      ),
    );
  } finally {
    await server.stop();
  }
  return figures;
}

export function limitLines(figures: readonly LimitFigure[]): string[] {
  return figures.map(
    (figure) =>
      `${figure.name}: ${figure.cpuMs.toFixed(3)} ms of server CPU per request over ${figure.requests} (${figure.statuses})`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = await mkdtemp(join(tmpdir(), "picks-bench-limits-"));
  try {
    const bin = process.argv[2];
    for (const [label, env] of [
      ["default limits", {}],
      [
        "limits lifted (the cost of serving)",
        { MCP_FREE_RATE_LIMIT: "100000000", OLD_DAY_RATE_LIMIT: "100000000" },
      ],
    ] as const) {
      for (const line of limitLines(await runLimitsBench(root, { bin, env, label }))) console.log(line);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

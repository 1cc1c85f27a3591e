// The MCP server: cold start of the real CLI to its first tools/list answer (target < 500 ms), and
// labs_papers over a year of generated snapshots (target < 20 ms a call), in process and over stdio.
// Run alone with `node --import tsx bench/mcp.ts`; `runMcpBench()` returns the figures.
import { spawn } from "node:child_process";
import { mkdtemp, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Connected, connectInMemory, connectStdio, PICKS } from "../test/server/mcp/mcp-clients.ts";
import { publishYear } from "../test/server/mcp/year-site.ts";

const YEAR = 365;
const STARTS = Number(process.env.BENCH_MCP_STARTS ?? 7);
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 200);

interface Spread {
  min: number;
  median: number;
  max: number;
}

export interface McpFigures {
  /** Spawn of `node bin/picks.js mcp` to the tools/list answer, over several starts. */
  coldStartMs: Spread;
  /** The baseline, measured between those starts: a bare `node -e` printing one line. */
  bareNodeMs: Spread;
  /** labs_papers per call over 365 published days, by transport. */
  papersCallMs: Record<"inMemory" | "stdio", { mean: number; p95: number; max: number }>;
  /** The first call after a snapshot changed: it reloads the year of files. */
  reloadCallMs: number;
  /** The largest labs_papers answer (limit 5000, full picks) in characters and estimated tokens. */
  largestAnswer: { chars: number; tokens: number };
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
};

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    min: sorted[0] ?? Number.NaN,
    median: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Milliseconds from spawning a bare Node process to its first line on stdout. */
function bareNode(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ["-e", "process.stdout.write('up\\n')"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  return new Promise((resolve, reject) => {
    child.stdout.once("data", () => {
      const elapsed = performance.now() - started;
      child.once("close", () => resolve(elapsed));
    });
    child.once("error", reject);
  });
}

/** Milliseconds from spawning the CLI to reading its tools/list answer on stdout. */
function coldStart(publicDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [PICKS, "mcp", "--data", publicDir], {
    stdio: ["pipe", "pipe", "ignore"],
  });
  const lines = [
    INITIALIZE,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ];
  child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (!seen.includes('"id":2')) return;
      const elapsed = performance.now() - started;
      child.stdin.end();
      child.once("close", () => resolve(elapsed));
    });
    child.once("error", reject);
  });
}

const QUERIES: Array<Record<string, unknown>> = [
  {},
  { days: YEAR },
  { days: YEAR, compact: false, limit: 25 },
  { days: YEAR, axis: "A6", min_score: 3 },
  { days: 90, min_score: 15, min_reg_fit: 2, limit: 25 },
  { days: YEAR, min_reg_fit: 3 },
];

async function timeCalls(mcp: Connected, calls: number) {
  const cursors: string[] = [];
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const query = QUERIES[i % QUERIES.length] as Record<string, unknown>;
    const args = i % 7 === 6 && cursors.length > 0 ? { cursor: cursors[i % cursors.length] } : query;
    const started = performance.now();
    const result = await mcp.call("labs_papers", args);
    times.push(performance.now() - started);
    if (result.isError) throw new Error(`labs_papers ${JSON.stringify(args)}: ${result.text}`);
    const next = (result.structuredContent as { next_cursor: string | null }).next_cursor;
    if (next && "days" in args) cursors.push(next);
  }
  times.sort((a, b) => a - b);
  return {
    mean: times.reduce((sum, time) => sum + time, 0) / times.length,
    p95: times[Math.floor(times.length * 0.95)] ?? Number.NaN,
    max: times.at(-1) ?? Number.NaN,
  };
}

export async function runMcpBench(): Promise<McpFigures> {
  const root = await mkdtemp(join(tmpdir(), "picks-bench-mcp-"));
  try {
    const publicDir = join(root, "public");
    await publishYear({ publicDir, days: YEAR, lastDate: "2026-11-20", picksPerDay: 6 });

    // The first start compiles the TypeScript into tsx's cache, as any first run after an edit does.
    await coldStart(publicDir);
    const starts: number[] = [];
    const boots: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      starts.push(await coldStart(publicDir));
      boots.push(await bareNode());
    }

    const inMemory = await connectInMemory(publicDir);
    await timeCalls(inMemory, 30);
    const inMemoryFigures = await timeCalls(inMemory, CALLS);
    const largest = await inMemory.call("labs_papers", { days: YEAR, limit: 5000, compact: false });
    const touched = new Date();
    await utimes(join(publicDir, "v1", "daily"), touched, touched);
    const reloadStarted = performance.now();
    await inMemory.call("labs_papers");
    const reloadCallMs = performance.now() - reloadStarted;
    await inMemory.close();

    const stdio = await connectStdio(publicDir);
    await timeCalls(stdio, 30);
    const stdioFigures = await timeCalls(stdio, CALLS);
    await stdio.close();

    return {
      coldStartMs: spread(starts),
      bareNodeMs: spread(boots),
      papersCallMs: { inMemory: inMemoryFigures, stdio: stdioFigures },
      reloadCallMs,
      largestAnswer: { chars: largest.text.length, tokens: Math.ceil(largest.text.length / 4) },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const figures = await runMcpBench();
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const { coldStartMs: start, bareNodeMs: bare, papersCallMs: calls } = figures;
  console.log(
    `mcp cold start to tools/list: median ${ms(start.median)} (min ${ms(start.min)}, max ${ms(start.max)}; ` +
      `target < 500 ms); ${(start.median / bare.median).toFixed(1)}x a bare \`node -e\` start ` +
      `(median ${ms(bare.median)})`,
  );
  for (const [transport, figure] of Object.entries(calls)) {
    console.log(
      `labs_papers over ${YEAR} days (${transport}): mean ${ms(figure.mean)}, p95 ${ms(figure.p95)}, ` +
        `max ${ms(figure.max)} (target < 20 ms)`,
    );
  }
  console.log(`first call after a snapshot changed (reloads ${YEAR} days): ${ms(figures.reloadCallMs)}`);
  console.log(
    `largest labs_papers answer: ${figures.largestAnswer.chars} characters, ` +
      `~${figures.largestAnswer.tokens} tokens`,
  );
}

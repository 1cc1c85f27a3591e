import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PICKS_BIN } from "../../helpers/processes.ts";
import { publishSampleDays } from "../../helpers/published.ts";

/** A `picks` child whose stderr lines are kept, so a test can count what it logged. */
export interface PicksChild {
  child: ChildProcess;
  url: string | null;
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `picks <args>` and resolves once stdout has a line matching `ready` (a url is kept if any). */
export function startPicks(args: string[], env: Record<string, string>, ready: RegExp): Promise<PicksChild> {
  const child = spawn(process.execPath, [PICKS_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr: string[] = [];
  let partial = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    stderr.push(...lines);
  });
  // "close", not "exit": by then stderr is read to the end, so no log line is still in the pipe.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (!ready.test(seen)) return;
      child.stdout?.removeAllListeners("data");
      child.stdout?.resume();
      resolve({ child, url: /(http:\/\/\S+)/.exec(seen)?.[1] ?? null, stderr, exited });
    });
    void exited.then(({ code }) =>
      reject(new Error(`picks ${args.join(" ")} exited with ${code}: ${seen}\n${stderr.join("\n")}`)),
    );
  });
}

export const serveArgs = (publicDir: string, extra: string[] = []) => [
  "serve",
  "--port",
  "0",
  "--public",
  publicDir,
  ...extra,
];

/** Stops each `picks` child still running with SIGTERM, one after the other, and waits until its output is read to the end. */
export async function stopPicks(children: Array<PicksChild | undefined>): Promise<void> {
  for (const picks of children) {
    if (picks && picks.child.exitCode === null && picks.child.signalCode === null) {
      picks.child.kill("SIGTERM");
      await picks.exited;
    }
  }
}

/**
 * `picks serve` over the sample days with its state in SQLite in a new folder named after `label`, `env`
 * added; the environment is returned for the CLI calls (keys, curate) that must share that state.
 */
export async function serveSampleOnSqlite(
  env: Record<string, string>,
  label: string,
): Promise<{
  server: PicksChild;
  env: Record<string, string>;
  site: { publicDir: string; runsDir: string };
}> {
  const site = await publishSampleDays();
  const full = { ...env, STATE_STORE: "sqlite", STATE_DIR: await mkdtemp(join(tmpdir(), `picks-${label}-`)) };
  const server = await startPicks(serveArgs(site.publicDir), full, /listening on http/);
  return { server, env: full, site };
}

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { Store } from "../../../server/store/types.ts";

/** Runs a TypeScript fixture of this folder in its own Node process (through tsx), stdio piped. */
export function spawnFixture(name: string, args: string[]): ChildProcess {
  const file = fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
  return spawn(process.execPath, ["--import", "tsx", file, ...args], { stdio: ["pipe", "pipe", "pipe"] });
}

/** Calls `onLine` for each complete stdout line; resolves with stderr when the process exits. */
export function collectLines(
  child: ChildProcess,
  onLine: (line: string) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let buffered = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      onLine(line);
    }
  });
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal, stderr }));
  });
}

/**
 * Runs fixtures/store-hammer.ts once per argument list, all on the state `store` opens, and checks
 * what only an atomic store gets right: 1,000 attempts on a quota of 300 allow exactly 300, the
 * 1,000 sequence values are 1..1000, and 200 queued ids are each claimed exactly once. No test asks
 * that the processes share the work evenly: exactness is the guarantee, fairness is not.
 */
export async function expectExactAcrossProcesses(store: Store, argLists: string[][]): Promise<void> {
  const queue = store.queue("shared");
  const ids = Array.from({ length: 200 }, (_, i) => `job-${i}`);
  for (const id of ids) await queue.push(id);
  const children = argLists.map((args) => spawnFixture("store-hammer.ts", args));
  let ready = 0;
  const summaries: { allowed: number; sequence: number[]; claimed: string[] }[] = [];
  const exits = children.map((child) =>
    collectLines(child, (line) => {
      if (line !== "ready") summaries.push(JSON.parse(line));
      else if (++ready === children.length) for (const each of children) each.stdin?.write("go\n");
    }),
  );
  for (const exit of await Promise.all(exits)) expect(exit.code, exit.stderr).toBe(0);
  expect(summaries).toHaveLength(children.length);
  const attempts = 500 * children.length;
  expect(summaries.reduce((sum, summary) => sum + summary.allowed, 0)).toBe(Math.min(300, attempts));
  const sequence = summaries.flatMap((summary) => summary.sequence).sort((a, b) => a - b);
  expect(sequence).toEqual(Array.from({ length: attempts }, (_, i) => i + 1));
  const claimed = summaries.flatMap((summary) => summary.claimed);
  expect(claimed).toHaveLength(ids.length);
  expect(new Set(claimed)).toEqual(new Set(ids));
  expect(await store.peek("shared:quota")).toBe(Math.min(300, attempts));
}

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

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

import { type ChildProcess, execFile, spawn } from "node:child_process";

export interface Started {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a server process and resolves once it prints `listening on <url>`. */
export function startProcess(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Started> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(seen)?.[1];
      if (!url) return;
      child.stdout?.off("data", onData);
      child.stdout?.resume();
      resolve({
        url,
        child,
        stop: () =>
          new Promise((done) => {
            child.once("exit", () => done());
            child.kill("SIGTERM");
            setTimeout(() => child.kill("SIGKILL"), 3000).unref();
          }),
      });
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${seen}`)));
  });
}

export interface Collecting {
  url: string;
  child: ChildProcess;
  /** All the process has written to stdout so far. */
  stdout(): string;
  /** All it has written to stderr so far ("" when stderr is inherited). */
  stderr(): string;
}

// Starts a server process whose whole output is kept for the test to search; resolves once it prints `listening on <url>`.
export function startCollecting(
  args: string[],
  env: NodeJS.ProcessEnv,
  stderr: "pipe" | "inherit" = "pipe",
): Promise<Collecting> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", stderr] });
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, child, stdout: () => out, stderr: () => err });
    });
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${out}${err}`)));
  });
}

// The JSON lines of a process's output (the request log), the banner and other text left out.
export function jsonLines<T>(text: string): T[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as T);
}

export const PICKS_BIN = new URL("../../bin/picks.js", import.meta.url).pathname;

/** Starts `picks serve` on a free loopback port with the given environment (STATE_DIR, REDIS_URL...). */
export function startPicksServer(publicDir: string, env: Record<string, string> = {}): Promise<Started> {
  return startProcess([PICKS_BIN, "serve", "--port", "0", "--public", publicDir], { ...process.env, ...env });
}

export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `picks <args>` to completion as a real process; a non-zero exit is a result, not a throw. */
export function runPicks(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(process.execPath, [PICKS_BIN, ...args], { env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

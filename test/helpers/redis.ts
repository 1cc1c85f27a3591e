import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The path of `redis-server` on PATH, or null. */
export function findRedisServer(): string | null {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir || ".", "redis-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

/** Why Redis tests cannot run here, or null when they can. Only a missing binary is a reason. */
export function redisSkipReason(): string | null {
  return findRedisServer()
    ? null
    : "redis-server is not on PATH: Redis tests skipped (apt-get install -y redis-server to run them)";
}

/**
 * Starts a throwaway redis-server on a free loopback port, with persistence off and its files in a
 * temp folder; retries on another port if the chosen one is taken before redis binds it.
 */
export async function startRedis(): Promise<RedisServer> {
  const binary = findRedisServer();
  if (!binary) {
    throw new Error(redisSkipReason() ?? "redis-server not found");
  }
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "rp-redis-"));
    const child = spawn(
      binary,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      await waitForReady(child);
    } catch (error) {
      lastError = error;
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      async stop() {
        await stopChild(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  throw new Error("Expected redis-server to start on a free loopback port", { cause: lastError });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

function waitForReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => fail(new Error(`redis-server did not get ready in 10 s:\n${output}`)),
      10_000,
    );
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        done();
        resolve();
      }
    };
    const onExit = (code: number | null): void =>
      fail(new Error(`redis-server exited (${code}):\n${output}`));
    const done = (): void => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      child.stdout?.resume();
      child.stderr?.resume();
    };
    const fail = (error: Error): void => {
      done();
      reject(error);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

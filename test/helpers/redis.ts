import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findOnPath, freePort, stopChild } from "./local-process.ts";

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The path of `redis-server` on PATH, or null. */
export function findRedisServer(): string | null {
  return findOnPath("redis-server");
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

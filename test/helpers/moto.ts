import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import type { S3Settings } from "../../pipeline/origin/s3-origin.ts";
import { findOnPath, freePort, stopChild } from "./local-process.ts";
import { runPicks } from "./processes.ts";

// A real S3 API on loopback for the bucket driver's tests: moto's server, one per test file, a fresh
// bucket per case.

export interface MotoServer {
  /** `http://127.0.0.1:PORT`, for S3_ENDPOINT with path-style addressing. */
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

const READY_MS = 15_000;

/** The path of `moto_server` on PATH, or null. */
export function findMotoServer(): string | null {
  return findOnPath("moto_server");
}

/** Why bucket tests cannot run here, or null when they can. Only a missing binary is a reason. */
export function motoSkipReason(): string | null {
  return findMotoServer()
    ? null
    : "moto_server is not on PATH: S3 bucket tests skipped (pip install 'moto[server]' to run them)";
}

/**
 * Starts moto's S3 server on a free loopback port and waits until it answers HTTP; retries on another
 * port if the chosen one is taken before moto binds it.
 */
export async function startMoto(): Promise<MotoServer> {
  const binary = findMotoServer();
  if (!binary) throw new Error(motoSkipReason() ?? "moto_server not found");
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const endpoint = `http://127.0.0.1:${port}`;
    const child = spawn(binary, ["-H", "127.0.0.1", "-p", String(port)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      await waitForHttp(child, endpoint);
    } catch (error) {
      lastError = error;
      await stopChild(child);
      continue;
    }
    return { endpoint, port, stop: () => stopChild(child) };
  }
  throw new Error("Expected moto_server to start on a free loopback port", { cause: lastError });
}

/** The settings `createS3Origin` needs to reach moto at `endpoint`. */
export function s3Settings(endpoint: string): S3Settings {
  return {
    accessKeyId: "test",
    secretAccessKey: "test",
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
  };
}

/** The environment `picks publish` reads to reach moto at `endpoint`. */
export function s3Env(endpoint: string): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
    AWS_REGION: "us-east-1",
    S3_ENDPOINT: endpoint,
    S3_FORCE_PATH_STYLE: "1",
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  };
}

/** A plain S3 client straight at `endpoint`: the second client that checks what a publish left. */
export function s3Client(endpoint: string): S3Client {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const settings = s3Settings(endpoint);
  return new S3Client({
    region: settings.region,
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

let bucketCount = 0;

/** A bucket name no other case of this run uses. */
export function uniqueBucketName(label: string): string {
  bucketCount += 1;
  return `${label}-${process.pid}-${bucketCount}-${Math.random().toString(36).slice(2, 8)}`.slice(0, 63);
}

/** Creates a bucket at `endpoint` that no other case of this run uses, named after `label`; returns its name. */
export async function newBucket(endpoint: string, label: string): Promise<string> {
  const name = uniqueBucketName(label);
  const client = s3Client(endpoint);
  try {
    await client.send(new CreateBucketCommand({ Bucket: name }));
  } finally {
    client.destroy();
  }
  return name;
}

/** The prefix publishToNewBucket publishes under. */
export const SITE_PREFIX = "site";

/**
 * A new bucket at `endpoint` holding the site folder `from` under SITE_PREFIX, written by a real `picks publish`
 * with `env` over the test's own environment; returns its `s3://` URL.
 */
export async function publishToNewBucket(
  endpoint: string,
  label: string,
  from: string,
  env: Record<string, string>,
): Promise<string> {
  const url = `s3://${await newBucket(endpoint, label)}/${SITE_PREFIX}`;
  const done = await runPicks(["publish", "--to", url, "--from", from], { ...process.env, ...env });
  if (done.code !== 0) throw new Error(`picks publish to ${url} exited with ${done.code}: ${done.stderr}`);
  return url;
}

async function waitForHttp(child: ChildProcess, endpoint: string): Promise<void> {
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const deadline = Date.now() + READY_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`moto_server exited (${child.exitCode ?? child.signalCode}):\n${output}`);
    }
    try {
      const answer = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(1_000) });
      await answer.arrayBuffer();
      if (answer.ok) return;
    } catch {}
    await sleep(100);
  }
  throw new Error(`moto_server did not answer at ${endpoint} in ${READY_MS / 1000} s:\n${output}`);
}

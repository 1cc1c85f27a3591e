import { mkdtemp } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFromEnv, DEFAULT_CONFIG } from "../../../server/config.ts";
import { listen, type RunningServer } from "../../../server/http/listen.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { testContext } from "../../helpers/context.ts";

// Slow clients against a real server on loopback: a socket held open by dribbling headers or a body,
// or left idle after an answer, is closed by the configured timeouts, not held for a minute.

const HEADERS_MS = 300;
const REQUEST_MS = 700;
const KEEP_ALIVE_MS = 200;

let snapshots: SnapshotCache;
let running: RunningServer;
let port: number;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: await mkdtemp(join(tmpdir(), "picks-timeouts-")) });
  const config = {
    headersTimeoutMs: HEADERS_MS,
    requestTimeoutMs: REQUEST_MS,
    keepAliveTimeoutMs: KEEP_ALIVE_MS,
  };
  running = await listen(await testContext(snapshots, { config }), { port: 0, host: "127.0.0.1" });
  port = Number(new URL(running.url).port);
});
afterAll(async () => {
  await running.close(100);
  snapshots.close();
});

/** Writes `text` one byte every `everyMs` until the server closes; resolves with what it answered. */
function dribble(
  socket: Socket,
  text: string,
  everyMs: number,
): Promise<{ answer: string; afterMs: number }> {
  const started = performance.now();
  let answer = "";
  let at = 0;
  socket.on("data", (chunk) => {
    answer += chunk.toString();
  });
  socket.on("error", () => {});
  const timer = setInterval(() => {
    if (!socket.destroyed && at < text.length) socket.write(text.charAt(at++));
  }, everyMs);
  return new Promise((resolve) =>
    socket.once("close", () => {
      clearInterval(timer);
      resolve({ answer, afterMs: performance.now() - started });
    }),
  );
}

const opened = (): Promise<Socket> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
  });

describe("client timeouts over a real port", () => {
  it("cuts off a client that sends its headers slowly once the headers timeout passes", async () => {
    const socket = await opened();
    const slowHeaders = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${"a".repeat(200)}\r\n\r\n`;
    const { answer, afterMs } = await dribble(socket, slowHeaders, 20);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 20);
    expect(afterMs).toBeLessThan(HEADERS_MS + 800);
  });

  it("cuts off a client that sends its body slowly once the request timeout passes", async () => {
    const socket = await opened();
    const body = JSON.stringify({ email: "ada@example.org", label: "slow body".repeat(20) });
    socket.write(
      `POST /v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    const { answer, afterMs } = await dribble(socket, body, 20);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(REQUEST_MS - HEADERS_MS);
    expect(afterMs).toBeLessThan(REQUEST_MS + 800);
  });

  it("closes an idle keep-alive connection after the keep-alive timeout", async () => {
    const socket = await opened();
    // The whole request at once: the answer comes, then nothing, until the server closes.
    const closed = dribble(socket, "", 1_000);
    socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const { answer, afterMs } = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    // Node waits one second more than it announces, so a client never reuses a socket it is closing.
    expect(afterMs).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
    expect(afterMs).toBeLessThan(KEEP_ALIVE_MS + 1_800);
  });

  it("answers a client that is merely not fast, with the default timeouts", async () => {
    const server = await listen(await testContext(snapshots), { port: 0, host: "127.0.0.1" });
    expect([
      server.server.headersTimeout,
      server.server.requestTimeout,
      server.server.keepAliveTimeout,
    ]).toEqual([
      DEFAULT_CONFIG.headersTimeoutMs,
      DEFAULT_CONFIG.requestTimeoutMs,
      DEFAULT_CONFIG.keepAliveTimeoutMs,
    ]);
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
    const { answer } = await dribble(
      socket,
      "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
      5,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    await server.close(100);
  });
});

describe("timeouts from the environment", () => {
  it("defaults to 10 s for headers, 30 s for the request and 5 s of keep-alive", () => {
    expect(configFromEnv({})).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
    });
  });

  it("reads HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS and HTTP_KEEP_ALIVE_TIMEOUT_MS", () => {
    const env = {
      HTTP_HEADERS_TIMEOUT_MS: "5000",
      HTTP_REQUEST_TIMEOUT_MS: "20000",
      HTTP_KEEP_ALIVE_TIMEOUT_MS: "65000",
    };
    expect(configFromEnv(env)).toMatchObject({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 20_000,
      keepAliveTimeoutMs: 65_000,
    });
  });

  it.each([
    [
      { HTTP_HEADERS_TIMEOUT_MS: "10s" },
      "Expected HTTP_HEADERS_TIMEOUT_MS to be a whole number above 0, got `10s`",
    ],
    [
      { HTTP_REQUEST_TIMEOUT_MS: "0" },
      "Expected HTTP_REQUEST_TIMEOUT_MS to be a whole number above 0, got `0`",
    ],
    [
      { HTTP_HEADERS_TIMEOUT_MS: "40000" },
      "Expected HTTP_HEADERS_TIMEOUT_MS (40000) to be at most HTTP_REQUEST_TIMEOUT_MS (30000)",
    ],
  ])("refuses %j at start-up", (env, message) => {
    expect(() => configFromEnv(env)).toThrow(message);
  });
});

import { createServer, type IncomingMessage } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { describe, expect, it } from "vitest";
import { readNodeBody } from "../../../server/validation/read-body.ts";

/** A server whose handler reads the body `waitMs` after the request came; resolves with how the read ended. */
async function readLate(waitMs: number, send: (port: number) => Promise<void>): Promise<string> {
  let ended: (outcome: string) => void = () => {};
  const outcome = new Promise<string>((resolve) => {
    ended = resolve;
  });
  const server = createServer((req: IncomingMessage) => {
    setTimeout(() => {
      readNodeBody(req, 1024).then(
        (read) => ended(read.ok ? `read ${read.bytes.byteLength} bytes` : "over the cap"),
        (error: NodeJS.ErrnoException) => ended(`failed: ${error.code} ${error.message}`),
      );
    }, waitMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await send((server.address() as AddressInfo).port);
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("still pending"), 2000));
    return await Promise.race([outcome, timeout]);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** Sends `request` raw and closes the connection `leaveAfterMs` later. */
const sendAndLeave = (port: number, request: string, leaveAfterMs: number) =>
  new Promise<void>((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(request);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, leaveAfterMs);
    });
  });

const partialBody = (port: number, leaveAfterMs: number) =>
  sendAndLeave(port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{", leaveAfterMs);

describe("readNodeBody", () => {
  it("fails as Node's 'aborted' when the client leaves during the read", async () => {
    expect(await readLate(0, (port) => partialBody(port, 50))).toBe("failed: ECONNRESET aborted");
  });

  it("fails at once when the client left before the read began (a route that awaited the store first)", async () => {
    expect(await readLate(200, (port) => partialBody(port, 20))).toBe("failed: ECONNRESET aborted");
  });

  it("reads a whole body that arrived before the read began", async () => {
    const whole = (port: number) =>
      sendAndLeave(port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 500);
    expect(await readLate(100, whole)).toBe("read 5 bytes");
  });
});

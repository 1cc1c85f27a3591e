import { mkdtemp } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY_BODY_MAX_BYTES } from "../../../server/routes/key-routes.ts";
import { SUBMIT_BODY_MAX_BYTES } from "../../../server/routes/submission-routes.ts";
import { VERIFY_BODY_MAX_BYTES } from "../../../server/routes/verify-routes.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor, postJson } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";

// Each POST reads at most what its schema can hold, and says 413 as soon as it knows a body is larger:
// before reading it when the length is declared, at the cap when it is chunked. Under the cap, the
// answers are the FastAPI-shaped ones they always were.

const ROUTES = [
  ["/v1/keys", KEY_BODY_MAX_BYTES, 4096],
  ["/v1/score/submit", SUBMIT_BODY_MAX_BYTES, 16_384],
  ["/v1/verify", VERIFY_BODY_MAX_BYTES, 65_536],
] as const;

/** A valid body of each route, padded with JSON whitespace to exactly `size` bytes. */
const VALID: Record<(typeof ROUTES)[number][0], unknown> = {
  "/v1/keys": { email: "ada@example.org", label: "body limits" },
  "/v1/score/submit": {
    runtime_name: "Harbor",
    vendor: "Harbor Labs",
    url: "https://harbor.example/about",
    description: "Harbor is an agent runtime that schedules workflows and runs tool calls in sandboxes.",
    contact_email: "ada@example.org",
  },
  "/v1/verify": {
    subject: "Notes from Tuesday",
    body: "Hi Priya, the notes are attached. Best, Sam",
    recipient: "priya@example.org",
    options: { llm_check: false },
  },
};
const padded = (value: unknown, size: number) => {
  const text = JSON.stringify(value);
  return `${text}${" ".repeat(size - Buffer.byteLength(text))}`;
};

let snapshots: SnapshotCache;
let url: string;
let port: number;
let call: Call;
let inProcess: Call;
let closeAll: () => Promise<void>;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: await mkdtemp(join(tmpdir(), "picks-limits-")) });
  const config = { keyIssueLimit: 1000, verifyLimit: 1000, submitLimit: 1000 };
  const real = await clientFor("real port", await testContext(snapshots, { config }));
  const local = await clientFor("in-process", await testContext(snapshots, { config }));
  ({ call } = real);
  inProcess = local.call;
  url = real.url as string;
  port = Number(new URL(url).port);
  closeAll = async () => {
    await real.close();
    await local.close();
  };
});
afterAll(async () => {
  await closeAll();
  snapshots.close();
});

interface RawExchange {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with what was received once the server ends the connection. */
  ended: Promise<string>;
}

/** A raw connection that keeps its sending side open after the server's end, as a hostile client would. */
function open(): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString();
    });
    socket.on("error", () => {});
    const ended = new Promise<string>((done) => socket.once("close", () => done(text)));
    socket.once("connect", () => resolve({ socket, received: () => text, ended }));
    socket.once("error", reject);
  });
}

const head = (path: string, extra: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}\r\n`;

const waitFor = async (check: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
};

describe.each(ROUTES)("POST %s reads at most %i bytes", (path, cap, expected) => {
  it("is the cap the route is documented with", () => {
    expect(cap).toBe(expected);
  });

  it("answers a declared length over the cap with 413 before the body is sent, then closes", async () => {
    const raw = await open();
    raw.socket.write(head(path, `Content-Length: ${cap + 1}\r\n`));
    const answered = await waitFor(() => raw.received().includes("\r\n\r\n{"), 2000);
    expect(answered).toBe(true);
    const text = raw.received();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.slice(text.indexOf("\r\n\r\n") + 4)).toBe(
      JSON.stringify({ detail: `Request body too large: this endpoint takes at most ${cap} bytes` }),
    );
    // The server has ended its side; a second later it is gone, and what the client sends is refused.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const timer = setInterval(() => raw.socket.destroyed || raw.socket.write("x"), 20);
    const closed = await Promise.race([
      raw.ended.then(() => true),
      new Promise((r) => setTimeout(r, 2000, false)),
    ]);
    clearInterval(timer);
    expect(closed).toBe(true);
  });

  it("stops reading a chunked body once it passes the cap, and cuts a client that keeps sending", async () => {
    const raw = await open();
    raw.socket.write(head(path, "Transfer-Encoding: chunked\r\n"));
    const chunk = Buffer.alloc(1024, 0x20);
    let sent = 0;
    let sentAtAnswer = -1;
    const started = Date.now();
    raw.socket.once("data", () => {
      sentAtAnswer = sent;
    });
    const timer = setInterval(() => {
      if (raw.socket.destroyed) return;
      for (let i = 0; i < 4; i++)
        raw.socket.write(Buffer.concat([Buffer.from("400\r\n"), chunk, Buffer.from("\r\n")]));
      sent += 4 * chunk.length;
    }, 5);
    const text = await raw.ended;
    clearInterval(timer);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    // The answer came while the body was still arriving, a few chunks past the cap.
    expect(sentAtAnswer).toBeGreaterThan(cap);
    expect(sentAtAnswer).toBeLessThan(cap + 64 * 1024);
    // It kept sending after the answer; the server drained for a second, then cut the connection.
    expect(sent).toBeGreaterThan(sentAtAnswer);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("gives a client that sends the whole body the 413, not a reset", async () => {
    for (const size of [cap + 1, cap * 4, 1024 * 1024]) {
      const response = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: padded(VALID[path], size),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({
        detail: `Request body too large: this endpoint takes at most ${cap} bytes`,
      });
    }
  });

  it("takes a valid body of exactly the cap, and keeps answering on the connection", async () => {
    const exact = await call(path, postJson(padded(VALID[path], cap)));
    expect([200, 201, 202]).toContain(exact.status);
    const over = await call(path, postJson(padded(VALID[path], cap + 1)));
    expect(over.status).toBe(413);
    expect((await call("/health")).status).toBe(200);
  });

  it.each([
    ["malformed JSON just under the cap", (size: number) => `{"a": [${"1,".repeat((size - 12) / 2)}`],
    ["a body that is not an object", () => "[1, 2, 3]"],
    [
      "fields of the wrong type",
      () => JSON.stringify({ email: 1, label: null, runtime_name: [], subject: {} }),
    ],
    ["no body", () => ""],
  ])("answers %s exactly as before, over a real port and in-process", async (_name, body) => {
    const text = body(cap);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(cap);
    const real = await call(path, postJson(text));
    const local = await inProcess(path, postJson(text));
    expect(real.status).toBe(422);
    expect(local.status).toBe(422);
    expect(await real.text()).toBe(await local.text());
  });
});

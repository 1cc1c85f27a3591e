import { createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../server/http/app.ts";
import { nodeHandler } from "../../../server/http/node-answer.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor, MODES, postJson } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishFixtureDays } from "../../helpers/published.ts";

let snapshots: SnapshotCache;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishFixtureDays()).publicDir });
});
afterAll(() => snapshots.close());

const good = {
  subject: "Notes from Tuesday's review",
  body: "Hi Priya,\n\nThanks for walking us through the evaluation plan. I attached the notes; the open question is the holdout split.\n\nBest,\nSam",
  recipient: "priya.raman@northwind-labs.com",
  options: { llm_check: false },
};

interface VerifyAnswer {
  verdict: string;
  risk: number;
  checks: Array<{
    id: string;
    status: string;
    evidence: Array<{ field: string; start: number; end: number; text: string }>;
  }>;
  semantic: { status: string; reason: string };
  metadata: { checker_version: string; timezone: string; offset_unit: string };
}

describe.each(MODES)("POST /v1/verify (%s)", (mode) => {
  let call: Call;
  let close: () => Promise<void>;
  // A fixed Wednesday, so the send-window check is deterministic.
  const now = Date.parse("2026-11-18T10:00:00Z");
  beforeAll(async () => {
    ({ call, close } = await clientFor(
      mode,
      await testContext(snapshots, { config: { verifyLimit: 1000 }, now: () => now }),
    ));
  });
  afterAll(() => close());

  it("allows a plain, complete message", async () => {
    const response = await call("/v1/verify", postJson(good));
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-policy")).toBe('"verify";q=1000;w=3600');
    const answer = (await response.json()) as VerifyAnswer;
    expect(answer.verdict).toBe("allow");
    expect(answer.semantic.status).toBe("skipped");
    expect(answer.metadata).toMatchObject({
      checker_version: "1.0.0",
      timezone: "UTC",
      offset_unit: "code_point",
    });
  });

  it("blocks an unfilled placeholder and points at it", async () => {
    const body = "Hi {{first_name}},\n\nThanks for the call.\n\nSam";
    const answer = (await (await call("/v1/verify", postJson({ ...good, body }))).json()) as VerifyAnswer;
    expect(answer.verdict).toBe("block");
    const placeholder = answer.checks.find((check) => check.status === "fail");
    expect(placeholder?.evidence[0]).toMatchObject({
      field: "body",
      start: 3,
      end: 17,
      text: "{{first_name}}",
    });
  });

  it("says the semantic review is skipped, never passed, when no model is configured", async () => {
    const answer = (await (
      await call("/v1/verify", postJson({ ...good, options: {} }))
    ).json()) as VerifyAnswer;
    expect(answer.semantic.status).toBe("skipped");
    expect(answer.semantic.reason).toMatch(/model/i);
  });

  it.each([
    [
      "an unknown time zone",
      { ...good, options: { timezone: "Mars/Base" } },
      {
        type: "value_error",
        loc: ["body", "options", "timezone"],
        msg: "Value error, Unknown time zone 'Mars/Base'; expected an IANA name such as 'Europe/Berlin' or 'UTC'",
        input: "Mars/Base",
        ctx: { error: {} },
      },
    ],
    [
      "a subject over 500 code points",
      { ...good, subject: "😀".repeat(501) },
      {
        type: "string_too_long",
        loc: ["body", "subject"],
        msg: "String should have at most 500 characters",
        input: "😀".repeat(501),
        ctx: { max_length: 500 },
      },
    ],
    [
      "a redlist of 201 terms",
      { ...good, options: { redlist: Array.from({ length: 201 }, (_, i) => `t${i}`) } },
      {
        type: "too_long",
        loc: ["body", "options", "redlist"],
        msg: "List should have at most 200 items after validation, not 201",
        input: Array.from({ length: 201 }, (_, i) => `t${i}`),
        ctx: { field_type: "List", max_length: 200, actual_length: 201 },
      },
    ],
    [
      "a boolean that is not one",
      { ...good, options: { weekend_block: "maybe" } },
      {
        type: "bool_parsing",
        loc: ["body", "options", "weekend_block"],
        msg: "Input should be a valid boolean, unable to interpret input",
        input: "maybe",
      },
    ],
  ])("refuses %s with FastAPI's 422", async (_name, body, issue) => {
    const response = await call("/v1/verify", postJson(body));
    expect(response.status).toBe(422);
    expect(await response.text()).toBe(JSON.stringify({ detail: [issue] }));
  });

  it.each([
    ["options", { ...good, options: null }],
    ["options.redlist", { ...good, options: { llm_check: false, redlist: null } }],
  ])("takes null for %s, which the specification makes Optional[...] = None, as left out", async (_name, body) => {
    const response = await call("/v1/verify", postJson(body));
    expect(response.status).toBe(200);
    const answer = (await response.json()) as VerifyAnswer;
    expect(answer.verdict).toBe("allow");
    expect(answer.metadata.timezone).toBe("UTC");
  });

  it("still refuses null where the field has a value by default", async () => {
    const response = await call("/v1/verify", postJson({ ...good, options: { weekend_block: null } }));
    expect(await response.text()).toBe(
      '{"detail":[{"type":"bool_type","loc":["body","options","weekend_block"],"msg":"Input should be a valid boolean","input":null}]}',
    );
  });

  it.each([
    [
      '{"subject": 1.0, "body": "Hi", "recipient": "a@b.c"}',
      '{"detail":[{"type":"string_type","loc":["body","subject"],"msg":"Input should be a valid string","input":1.0}]}',
    ],
    [
      '{"subject": "Hi", "body": "Hi", "recipient": "a@b.c", "options": {"weekend_block": 2.0, "redlist": ["x", 1e16, -0.0]}}',
      '{"detail":[{"type":"bool_parsing","loc":["body","options","weekend_block"],"msg":"Input should be a valid boolean, unable to interpret input","input":2.0},' +
        '{"type":"string_type","loc":["body","options","redlist",1],"msg":"Input should be a valid string","input":1e+16},' +
        '{"type":"string_type","loc":["body","options","redlist",2],"msg":"Input should be a valid string","input":-0.0}]}',
    ],
    [
      '{"body": "Hi", "recipient": "a@b.c", "2": 9007199254740993, "1": 1e-5}',
      '{"detail":[{"type":"missing","loc":["body","subject"],"msg":"Field required","input":{"body":"Hi","recipient":"a@b.c","2":9007199254740993,"1":1e-05}}]}',
    ],
    [
      '{"subject": "Hi \\ud83d", "body": "Hi", "recipient": "a@b.c"}',
      '{"detail":[{"type":"string_unicode","loc":["body","subject"],"msg":"Input should be a valid string, unable to parse raw data as a unicode string","input":"Hi \\ud83d"}]}',
    ],
  ])("echoes %s as FastAPI does", async (body, expected) => {
    const response = await call("/v1/verify", postJson(body));
    expect(response.status).toBe(422);
    expect(await response.text()).toBe(expected);
  });

  it("accepts a 500-code-point subject of emoji (1000 UTF-16 units)", async () => {
    const response = await call("/v1/verify", postJson({ ...good, subject: "😀".repeat(500) }));
    expect(response.status).toBe(200);
  });
});

describe("the per-address limit of 20 calls an hour", () => {
  it("answers exactly 20 of 40 concurrent calls from one address, then 429 with Retry-After", async () => {
    const context = await testContext(snapshots);
    const { call, close } = await clientFor("real port", context);
    const answers = await Promise.all(Array.from({ length: 40 }, () => call("/v1/verify", postJson(good))));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    const refused = answers.find((answer) => answer.status === 429) as Response;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3500);
    expect(refused.headers.get("ratelimit")).toMatch(/^"verify";r=0;t=\d+$/);
    expect(((await refused.json()) as { detail: string }).detail).toContain("20 verifications per hour");
    await close();
  });

  it("counts addresses separately", async () => {
    const context = await testContext(snapshots);
    const { call } = await clientFor("in-process", context);
    for (let i = 0; i < 20; i++)
      expect((await call("/v1/verify", postJson(good, { ip: "198.51.100.1" }))).status).toBe(200);
    expect((await call("/v1/verify", postJson(good, { ip: "198.51.100.1" }))).status).toBe(429);
    expect((await call("/v1/verify", postJson(good, { ip: "198.51.100.2" }))).status).toBe(200);
  });
});

describe("redlist terms", () => {
  it("refuses a term over 200 characters with FastAPI's 422 at its index", async () => {
    const context = await testContext(snapshots);
    const { call } = await clientFor("in-process", context);
    const long = "字".repeat(201);
    const response = await call("/v1/verify", postJson({ ...good, options: { redlist: ["ok", long] } }));
    expect(response.status).toBe(422);
    expect(await response.text()).toBe(
      JSON.stringify({
        detail: [
          {
            type: "string_too_long",
            loc: ["body", "options", "redlist", 1],
            msg: "String should have at most 200 characters",
            input: long,
            ctx: { max_length: 200 },
          },
        ],
      }),
    );
  });
});

describe("the fast path before the router", () => {
  // Headers that depend on the connection, not the answer.
  const CONNECTION = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);
  const answerOf = async (response: Response) => ({
    status: response.status,
    headers: [...response.headers].filter(([name]) => !CONNECTION.has(name)),
    body: await response.text(),
  });

  it.each([
    ["a plain message", postJson(good)],
    [
      "a message with findings",
      postJson({ ...good, body: "Hi {{name}}, key sk-ABCDEF0123456789abcdef0123 ok" }),
    ],
    ["a refused field", postJson({ ...good, recipient: 5 })],
    ["invalid JSON", postJson('{"subject": ')],
    ["JSON that is not an object", postJson("[1, 2]")],
    ["no body", { method: "POST" }],
    ["a body that is not JSON", { method: "POST", headers: { "content-type": "text/plain" }, body: "hello" }],
    [
      "bytes that are not UTF-8",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Uint8Array([0x7b, 0xff, 0x7d]),
      },
    ],
    ["a body over the cap", postJson({ ...good, body: "x".repeat(70_000) })],
    [
      "a body sent in chunks, without a length",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Blob([JSON.stringify(good)]).stream(),
        duplex: "half",
      } as RequestInit,
    ],
  ])("answers %s with the route's status, headers and bytes", async (_name, init) => {
    const now = () => Date.parse("2026-11-18T10:00:00Z");
    // Both on a real port: the app alone (as `picks serve` would without its fast path) and `listen`.
    const context = await testContext(snapshots, { config: { verifyLimit: 1000 }, now });
    const routed = await testContext(snapshots, { config: { verifyLimit: 1000 }, now });
    const fast = await clientFor("real port", context);
    const app = createApp(routed);
    const server = createServer(nodeHandler((request) => app.fetch(request), routed.log));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const body = init.body instanceof ReadableStream ? undefined : init.body;
      const again =
        init.body instanceof ReadableStream
          ? { ...init, body: new Blob([JSON.stringify(good)]).stream() }
          : { ...init, body };
      const expected = await answerOf(
        await fetch(`http://127.0.0.1:${port}/v1/verify`, again as RequestInit),
      );
      expect(await answerOf(await fast.call("/v1/verify", init))).toEqual(expected);
    } finally {
      server.close();
      await fast.close();
    }
  });
});

describe("a repeated Content-Type", () => {
  /** The status code and body of one raw HTTP/1.1 exchange. */
  const rawPost = (port: number, head: string, body: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      let seen = "";
      const socket = connect(port, "127.0.0.1", () =>
        socket.write(`${head}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`),
      );
      socket.on("data", (chunk) => {
        seen += chunk.toString();
      });
      socket.on("end", () => {
        const [status = "", rest = ""] = seen.split("\r\n\r\n");
        resolve({ status: Number(status.split(" ")[1]), body: rest });
      });
      socket.on("error", reject);
    });

  it("is read by its first value on the fast path and the route alike, as Starlette reads it", async () => {
    const now = () => Date.parse("2026-11-18T10:00:00Z");
    const context = await testContext(snapshots, { config: { verifyLimit: 1000 }, now });
    const fast = await clientFor("real port", context);
    const app = createApp(await testContext(snapshots, { config: { verifyLimit: 1000 }, now }));
    const routed = createServer(
      nodeHandler(
        (request) => app.fetch(request),
        () => {},
      ),
    );
    await new Promise<void>((resolve) => routed.listen(0, "127.0.0.1", resolve));
    const head =
      "POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Type: application/json\r\n";
    try {
      const viaFast = await rawPost(Number(new URL(fast.url as string).port), head, JSON.stringify(good));
      const viaRoute = await rawPost((routed.address() as AddressInfo).port, head, JSON.stringify(good));
      expect(viaFast.status).toBe(200);
      expect(viaRoute).toEqual(viaFast);
    } finally {
      routed.close();
      await fast.close();
    }
  });
});

describe("a client gone before its body ended", () => {
  // The fast path (verify) and the app's routes (keys).
  it.each([
    "/v1/verify",
    "/v1/keys",
  ])("%s: is not answered, logs nothing and is not left in flight", async (path) => {
    const context = await testContext(snapshots, { config: { verifyLimit: 1000 } });
    const logged: string[] = [];
    Object.assign(context, { log: (message: string) => logged.push(message) });
    const { call, close, url } = await clientFor("real port", context);
    try {
      const { port } = new URL(url as string);
      const socket = connect(Number(port), "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(logged).toEqual([]);
      expect((await call("/v1/verify", postJson(good))).status).toBe(200);
    } finally {
      // Nothing is left in flight: a graceful stop does not wait out its 10 s deadline.
      const started = performance.now();
      await close();
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });
});

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFromEnv } from "../../../server/config.ts";
import { createApp } from "../../../server/http/app.ts";
import { nodeHandler } from "../../../server/http/node-answer.ts";
import { acceptedForm, createHostedMcp } from "../../../server/mcp/hosted-mcp.ts";
import { createHostedSnapshots } from "../../../server/mcp/hosted-snapshots.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor, postJson } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";

// A lone tools/call answered as JSON takes the hosted server's short path; an event stream goes
// through the SDK's server and transport. Both must give the same result for every call.

let snapshots: SnapshotCache;
let call: Call;
let close: () => Promise<void>;
let key: string;

beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
  const context = await testContext(snapshots, {
    config: { mcpAllowedOrigins: ["https://app.example"] },
  });
  key = (await context.keys.issue({ tier: "enterprise", email: "e@example.org", label: "t" })).key;
  ({ call, close } = await clientFor("in-process", context));
});
afterAll(async () => {
  await close();
  snapshots.close();
});

const message = (id: number, name: string, args: unknown) =>
  ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }) as const;

async function result(accept: string, id: number, name: string, args: unknown): Promise<unknown> {
  const answer = await call(
    "/mcp",
    postJson(message(id, name, args), { headers: { "x-api-key": key, accept } }),
  );
  expect(answer.status).toBe(200);
  const text = await answer.text();
  const json = accept === "text/event-stream" ? (/^data: (.*)$/m.exec(text)?.[1] ?? "") : text;
  return JSON.parse(json);
}

describe("the short path and the SDK's path give the same answers", () => {
  const calls: Array<[string, unknown]> = [
    ["labs_papers", {}],
    ["labs_papers", { compact: false, limit: 3 }],
    ["labs_papers", { axis: "A10" }],
    ["labs_papers", { days: "x" }],
    ["labs_paper", { arxiv_id: "1706.03762" }],
    ["labs_axes", { axis: "A3" }],
    ["labs_stats", {}],
    ["labs_stats", undefined],
    ["labs_unknown", {}],
  ];
  it.each(calls)("%s %j", async (name, args) => {
    const fast = await result("application/json", 5, name, args);
    const sdk = await result("text/event-stream", 5, name, args);
    expect(fast).toEqual(sdk);
    // The second time comes from the answers kept for this generation: the same again.
    expect(await result("application/json, text/event-stream", 5, name, args)).toEqual(sdk);
  });

  it("answers a string id in the envelope the SDK writes", async () => {
    const answer = await call(
      "/mcp",
      postJson({ ...message(0, "labs_stats", {}), id: "a-1" }, { headers: { "x-api-key": key } }),
    );
    expect((await answer.text()).endsWith(',"jsonrpc":"2.0","id":"a-1"}')).toBe(true);
  });
});

describe("origins and accepted forms", () => {
  it("lets a listed browser origin in and refuses another", async () => {
    const headers = { "x-api-key": key, accept: "application/json" };
    const listed = await call(
      "/mcp",
      postJson(message(1, "labs_stats", {}), { headers: { ...headers, origin: "https://app.example" } }),
    );
    expect(listed.status).toBe(200);
    const other = await call(
      "/mcp",
      postJson(message(1, "labs_stats", {}), { headers: { ...headers, origin: "https://evil.example" } }),
    );
    expect(other.status).toBe(403);
  });

  it.each([
    [null, "json"],
    ["application/json, text/event-stream", "json"],
    ["text/event-stream", "sse"],
    ["text/*", "sse"],
    ["*/*", "json"],
    ["application/json;q=0, text/event-stream", "sse"],
    ["text/html", undefined],
  ] as const)("Accept %s answers %s", (accept, form) => {
    expect(acceptedForm(accept)).toBe(form);
  });

  it("reads MCP_ALLOWED_ORIGINS as origins and refuses anything else", () => {
    expect(
      configFromEnv({ MCP_ALLOWED_ORIGINS: "https://App.example, http://localhost:5173/" }).mcpAllowedOrigins,
    ).toEqual(["https://app.example", "http://localhost:5173"]);
    expect(() => configFromEnv({ MCP_ALLOWED_ORIGINS: "https://app.example/path" })).toThrow(
      /MCP_ALLOWED_ORIGINS/,
    );
    expect(() => configFromEnv({ MCP_ALLOWED_ORIGINS: "*" })).toThrow(/MCP_ALLOWED_ORIGINS/);
  });
});

describe("what a tools/call spends", () => {
  const used = async (): Promise<number> => {
    const me = await call("/v1/me", { headers: { "x-api-key": key } });
    return ((await me.json()) as { usage: { used: number } }).usage.used;
  };

  it("one call for a tool that runs; nothing for an unknown tool or arguments that do not parse, as a 422 on the HTTP API", async () => {
    const before = await used();
    const refused: Array<[string, unknown]> = [
      ["labs_nothing", {}],
      ["labs_papers", { limit: 0 }],
      ["labs_papers", { days: "many" }],
      ["labs_paper", {}],
      ["labs_stats", { extra: true }],
    ];
    for (const [name, args] of refused) {
      const answer = (await result("application/json", 7, name, args)) as { result: { isError?: boolean } };
      expect(answer.result.isError, name).toBe(true);
    }
    expect(await used()).toBe(before);
    await result("application/json", 8, "labs_stats", {});
    expect(await used()).toBe(before + 1);
  });

  it("answers an infinite argument with its refusal, not with the kept answer of a null one, and spends nothing", async () => {
    // JSON.stringify writes 1e400 (Infinity once parsed) as null: one key for both calls would serve
    // the refused call the answer kept for the taken one, free of charge.
    const taken = (await result("application/json", 9, "labs_papers", { days: null })) as {
      result: { isError?: boolean };
    };
    expect(taken.result.isError).toBeUndefined();
    const before = await used();
    const body =
      '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"labs_papers","arguments":{"days":1e400}}}';
    const answer = await call("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-api-key": key },
      body,
    });
    const refused = (await answer.json()) as {
      result: { isError?: boolean; content: Array<{ text: string }> };
    };
    expect(refused.result.isError).toBe(true);
    expect(refused.result.content[0]?.text).toContain("days");
    expect(await used()).toBe(before);
  });
});

describe("what a body will cost", () => {
  // A lone plain tools/call is planned without the SDK schema's parses; a batch of that one message
  // goes through them, and must cost the same, for calls near that shape and off it.
  it("plans a lone tools/call as the SDK's schema plans the batch of it alone", () => {
    const hosted = createHostedMcp({
      snapshots: createHostedSnapshots(snapshots),
      version: "t",
      log: () => {},
    });
    const args = fc.oneof(
      fc.constant(undefined),
      fc.constant({ days: 7, compact: true }),
      fc.constant({ limit: 0 }),
      fc.constant({ axis: "A10" }),
      fc.dictionary(fc.constantFrom("days", "limit", "axis", "extra"), fc.jsonValue(), { maxKeys: 2 }),
    );
    const plainCall = fc.record({
      jsonrpc: fc.constant("2.0"),
      id: fc.oneof(fc.string(), fc.integer()),
      method: fc.constant("tools/call"),
      params: fc.record(
        { name: fc.constantFrom("labs_papers", "labs_stats", "labs_nothing"), arguments: args },
        { requiredKeys: ["name"] },
      ),
    });
    // Half plain, half with one thing off the plain shape.
    type Message = Record<string, unknown> & { params: Record<string, unknown> };
    const offShape: fc.Arbitrary<(message: Message) => unknown>[] = [
      fc.constant((m) => ({ ...m, jsonrpc: "1.0" })),
      fc.constant((m) => ({ ...m, method: "tools/list" })),
      fc.constant((m) => ({ ...m, extra: 1 })),
      fc
        .oneof(fc.double(), fc.constant(null), fc.constant(2 ** 60), fc.boolean())
        .map((id) => (m) => ({ ...m, id })),
      fc.constant((m) => ({ ...m, params: null })),
      fc.constant((m) => ({ ...m, params: { ...m.params, name: 7 } })),
      fc.constant((m) => ({ ...m, params: { ...m.params, task: {} } })),
      fc
        .oneof(fc.constant(null), fc.constant([]), fc.string())
        .map((a) => (m) => ({ ...m, params: { ...m.params, arguments: a } })),
      fc
        .oneof(fc.constant({}), fc.record({ progressToken: fc.oneof(fc.string(), fc.boolean()) }))
        .map((meta) => (m) => ({ ...m, params: { ...m.params, _meta: meta } })),
    ];
    const body = fc
      .tuple(plainCall, fc.option(fc.oneof(...offShape), { freq: 2 }))
      .map(([message, change]) => (change ? change(message as Message) : message));
    fc.assert(
      fc.property(body, fc.constantFrom(null, "2025-06-18", "1999-01-01"), (message, version) => {
        expect(hosted.plan(message, version)).toEqual(hosted.plan([message], version));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("the fast path before the router", () => {
  // Headers that depend on the connection, not the answer.
  const CONNECTION = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);
  const answerOf = async (response: Response) => ({
    status: response.status,
    headers: [...response.headers].filter(([name]) => !CONNECTION.has(name)).sort(),
    body: await response.text(),
  });

  it.each([
    ["a kept tool answer", message(7, "labs_papers", { days: 7, compact: true }), {}],
    ["tools/list", { jsonrpc: "2.0", id: 8, method: "tools/list" }, {}],
    ["a refused tool argument", message(9, "labs_papers", { axis: "A10" }), {}],
    ["an event stream", message(10, "labs_stats", {}), { accept: "text/event-stream" }],
    ["no key", message(11, "labs_stats", {}), { "x-api-key": "" }],
    ["an origin not listed", message(12, "labs_stats", {}), { origin: "https://elsewhere.example" }],
  ])("answers %s with the route's status, headers and bytes", async (_name, body, extra) => {
    // One instant for both answers: the seconds to a limit's reset (RateLimit's t=) would otherwise
    // differ by one whenever the two calls straddle a second.
    const instant = Date.now();
    const context = await testContext(snapshots, {
      config: { mcpAllowedOrigins: ["https://app.example"] },
      now: () => instant,
    });
    const keyed = (await context.keys.issue({ tier: "enterprise", email: "f@example.org", label: "t" })).key;
    // Both on a real port: the app alone (its route) and `listen` (the fast path first).
    const app = createApp(context);
    const routed = createServer(nodeHandler((request) => app.fetch(request), context.log));
    await new Promise<void>((resolve) => routed.listen(0, "127.0.0.1", resolve));
    const port = (routed.address() as AddressInfo).port;
    const fast = await clientFor("real port", context);
    try {
      const init = () =>
        postJson(body, { headers: { "x-api-key": keyed, accept: "application/json", ...extra } });
      const expected = await answerOf(await fetch(`http://127.0.0.1:${port}/mcp`, init()));
      const actual = await answerOf(await fast.call("/mcp", init()));
      // Each call spends the key's quota once: the remaining count is one lower the second time; the
      // two servers' challenges name their own ports.
      const remaining = (answer: typeof expected) =>
        answer.headers.map(([name, value]) =>
          name === "ratelimit"
            ? [name, value.replace(/r=\d+/, "r=?")]
            : name === "www-authenticate"
              ? [name, value.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:?")]
              : [name, value],
        );
      expect({ ...actual, headers: remaining(actual) }).toEqual({
        ...expected,
        headers: remaining(expected),
      });
    } finally {
      routed.close();
      await fast.close();
    }
  });
});

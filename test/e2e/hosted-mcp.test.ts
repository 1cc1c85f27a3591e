import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPicks, type Started, startPicksServer } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";
import { type Connected, connectStdio } from "../server/mcp/mcp-clients.ts";

// The hosted server (`POST /mcp` of a real `picks serve`) through the SDK's Streamable HTTP client,
// held to the answers of `picks mcp` over stdio on the same files.

let site: { publicDir: string };
let env: Record<string, string>;
let server: Started;
let stdio: Connected;

async function issue(tier: "free" | "enterprise"): Promise<string> {
  if (tier === "free") {
    const answer = await fetch(`${server.url}/v1/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "free@example.org", label: "mcp" }),
    });
    expect(answer.status).toBe(201);
    return ((await answer.json()) as { key: string }).key;
  }
  const issued = await runPicks(
    ["keys", "issue", "--tier", tier, "--email", `${tier}@example.org`, "--label", "mcp", "--json"],
    { ...process.env, ...env },
  );
  expect(issued.code, issued.stderr).toBe(0);
  return (JSON.parse(issued.stdout) as { key: string }).key;
}

async function connectHttp(headers: Record<string, string>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers },
  });
  const client = new Client({ name: "research-picks-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function post(body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${server.url}/mcp`, { method: "POST", body, headers: { ...JSON_HEADERS, ...headers } });
}

const toolCall = (id: number, name: string, args: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

async function used(key: string): Promise<number> {
  const me = await fetch(`${server.url}/v1/me`, { headers: { "x-api-key": key } });
  return ((await me.json()) as { usage: { used: number } }).usage.used;
}

beforeAll(async () => {
  site = await publishSampleDays();
  env = { STATE_DIR: await mkdtemp(join(tmpdir(), "picks-mcp-state-")), KEY_ISSUE_LIMIT: "100" };
  server = await startPicksServer(site.publicDir, env);
  stdio = await connectStdio(site.publicDir);
}, 60_000);
afterAll(async () => {
  await stdio?.close();
  await server?.stop();
});

describe("POST /mcp against `picks mcp`, the same tools from the same files", () => {
  let http: Client;
  let key: string;
  beforeAll(async () => {
    key = await issue("enterprise");
    http = await connectHttp({ "x-api-key": key });
  });
  afterAll(() => http?.close());

  it("lists the same four tools with the same schemas, and labs_for_me for the key", async () => {
    const hosted = await http.listTools();
    expect(hosted.tools.map((tool) => tool.name)).toEqual([
      "labs_papers",
      "labs_paper",
      "labs_axes",
      "labs_stats",
      "labs_for_me",
    ]);
    // `picks mcp` has no key, so no reader profile: it has the other four.
    expect(hosted.tools.slice(0, 4)).toEqual((await stdio.client.listTools()).tools);
  });

  it("gives every call the stdio server's answer, errors included", async () => {
    const first = JSON.parse((await stdio.call("labs_papers", { days: 7, limit: 1 })).text).picks[0];
    const calls: Array<[string, Record<string, unknown>]> = [
      ["labs_papers", {}],
      ["labs_papers", { days: 7, compact: true }],
      ["labs_papers", { days: 30, compact: false, limit: 3 }],
      ["labs_papers", { axis: "A6", min_score: 2, limit: "2" }],
      ["labs_papers", { axis: "A10" }],
      ["labs_papers", { cursor: "nonsense" }],
      ["labs_paper", { arxiv_id: `arXiv:${first.arxiv_id}v2` }],
      ["labs_paper", { arxiv_id: "1706.03762" }],
      ["labs_paper", { arxiv_id: "not an id" }],
      ["labs_paper", {}],
      ["labs_axes", {}],
      ["labs_axes", { axis: "REG" }],
      ["labs_axes", { axis: "A12" }],
      ["labs_stats", {}],
      ["labs_stats", { extra: 1 }],
      ["labs_nothing", {}],
    ];
    for (const [name, args] of calls) {
      const hosted = (await http.callTool({ name, arguments: args })) as CallToolResult;
      const local = (await stdio.client.callTool({ name, arguments: args })) as CallToolResult;
      expect(hosted, `${name} ${JSON.stringify(args)}`).toEqual(local);
    }
    // Follows a cursor across both, page by page.
    const page = (await http.callTool({ name: "labs_papers", arguments: { limit: 2 } })) as CallToolResult;
    const cursor = (page.structuredContent as { next_cursor: string | null }).next_cursor;
    expect(cursor).not.toBeNull();
    expect(await http.callTool({ name: "labs_papers", arguments: { cursor, limit: 2 } })).toEqual(
      await stdio.client.callTool({ name: "labs_papers", arguments: { cursor, limit: 2 } }),
    );
  });

  it("takes the key as Authorization: Bearer, and both protocol versions", async () => {
    const bearer = await connectHttp({ authorization: `Bearer ${key}` });
    expect((await bearer.callTool({ name: "labs_stats", arguments: {} })).isError).toBeFalsy();
    await bearer.close();
    for (const version of ["2025-06-18", "2025-03-26"]) {
      const answer = await post(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "0" } },
        }),
        { "x-api-key": key },
      );
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(
        version,
      );
      const call = await post(toolCall(2, "labs_stats"), {
        "x-api-key": key,
        "mcp-protocol-version": version,
      });
      expect(call.status).toBe(200);
    }
  });

  it("answers in the form the client accepts", async () => {
    const stream = await post(toolCall(7, "labs_stats"), { "x-api-key": key, accept: "text/event-stream" });
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const event = /^data: (.*)$/m.exec(await stream.text())?.[1] ?? "";
    expect(JSON.parse(event)).toMatchObject({ id: 7, result: { structuredContent: { days: 3 } } });
    const any = await post(toolCall(8, "labs_stats"), { "x-api-key": key, accept: "*/*" });
    expect(any.headers.get("content-type")).toBe("application/json");
    expect(((await any.json()) as { id: number }).id).toBe(8);
    const html = await post(toolCall(9, "labs_stats"), { "x-api-key": key, accept: "text/html" });
    expect(html.status).toBe(406);
  });

  it("answers malformed JSON-RPC with the SDK's JSON-RPC errors, never a 500", async () => {
    const bodies = [
      "{not json",
      "",
      "[]",
      "42",
      '{"jsonrpc":"2.0","id":1}',
      '{"jsonrpc":"1.0","id":1,"method":"tools/call"}',
      '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call","params":{"name":"labs_stats"}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"labs_stats","arguments":"x"}}',
      JSON.stringify(
        [1, 2].map((id) => ({
          jsonrpc: "2.0",
          id,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "0" },
          },
        })),
      ),
    ];
    const seen: string[] = [];
    for (const body of bodies) {
      const answer = await post(body, { "x-api-key": key });
      const text = await answer.text();
      const code =
        answer.status === 202 ? "" : (JSON.parse(text) as { error?: { code: number } }).error?.code;
      seen.push(`${answer.status} ${code} ${body}`);
    }
    expect(seen.map((line) => line.slice(0, line.indexOf(" ", 4)))).toEqual([
      "400 -32700",
      "400 -32700",
      "400 -32600",
      "400 -32700",
      "400 -32700",
      "400 -32700",
      "400 -32700",
      // Arguments that are not an object fail the SDK's check of the request, inside the protocol.
      "200 -32603",
      "400 -32600",
    ]);
    expect((await post("{not json", { "x-api-key": key })).status).toBe(400);
    expect(
      ((await (await post("{not json", { "x-api-key": key })).json()) as { error: { code: number } }).error
        .code,
    ).toBe(-32700);
    const get = await fetch(`${server.url}/mcp`, { headers: { "x-api-key": key } });
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    const del = await fetch(`${server.url}/mcp`, { method: "DELETE", headers: { "x-api-key": key } });
    expect(del.status).toBe(405);
  });
});

describe("POST /mcp keys, quota and origins", () => {
  it("spends one call per tools/call and nothing else: 150 at once on a free key, exactly 100 pass", async () => {
    const key = await issue("free");
    const client = await connectHttp({ "x-api-key": key });
    await client.listTools();
    await client.close();
    expect(await used(key)).toBe(0);

    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        post(toolCall(i, "labs_papers", { days: 7, compact: true }), { "x-api-key": key }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(50);
    const refused = answers.find((answer) => answer.status === 429) as Response;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit")).toMatch(/^"quota";r=0;t=\d+$/);
    expect(refused.headers.get("ratelimit-policy")).toBe('"quota";q=100;w=2592000');
    expect(await refused.json()).toEqual({ detail: expect.stringMatching(/^Quota exhausted/) });
    const passed = answers.find((answer) => answer.status === 200) as Response;
    expect(passed.headers.get("ratelimit")).toMatch(/^"quota";r=\d+;t=\d+$/);
    expect(await used(key)).toBe(100);
  });

  it("applies the free tier's history and says so", async () => {
    const key = await issue("free");
    const answer = await post(toolCall(1, "labs_papers", { days: 30, limit: 100 }), { "x-api-key": key });
    const { result } = (await answer.json()) as { result: { structuredContent: Record<string, unknown> } };
    expect(result.structuredContent.applied).toMatchObject({ days: 7, limit: 25, capped: ["days", "limit"] });
    expect(result.structuredContent.notes).toContain("days lowered to 7, the history the free tier reaches");
  });

  it("refuses a browser origin not listed, a missing, a malformed and a revoked key", async () => {
    const key = await issue("free");
    const evil = await post(toolCall(1, "labs_stats"), { "x-api-key": key, origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toEqual({ detail: expect.stringContaining("MCP_ALLOWED_ORIGINS") });

    const missing = await post(toolCall(1, "labs_stats"), {});
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    expect(await missing.json()).toEqual({ detail: expect.stringContaining("POST /v1/keys") });

    const malformed = await post(toolCall(1, "labs_stats"), { authorization: "Bearer rp_labs_nope" });
    // The challenge names where an OAuth client finds how to get a token (RFC 9728 §5.1).
    expect([malformed.status, malformed.headers.get("www-authenticate")]).toEqual([
      401,
      `Bearer realm="research-picks", resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="mcp", error="invalid_token"`,
    ]);

    const revoked = await issue("free");
    expect((await runPicks(["keys", "revoke", revoked], { ...process.env, ...env })).code).toBe(0);
    const answer = await post(toolCall(1, "labs_stats"), { "x-api-key": revoked });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ detail: expect.stringMatching(/revoked/) });
    expect(await used(key)).toBe(0);
  });
});

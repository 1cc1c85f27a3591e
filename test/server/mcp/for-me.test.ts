import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PersonalPicks } from "../../../pipeline/domain/reader-answers.ts";
import { loadRelevanceModel, newestModelPath } from "../../../pipeline/relevance-file.ts";
import type { AppContext } from "../../../server/context.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor, postJson } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishRankedSampleDays } from "../../helpers/published.ts";
import { connectInMemory } from "./mcp-clients.ts";

// labs_for_me on the hosted server, through a real loopback listener and the SDK's own client: the
// caller's key decides whose list it is, and the list is the one GET /v1/me/picks answers.

let publicDir: string;
let snapshots: SnapshotCache;
let context: AppContext;
let call: Call;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  publicDir = (await publishRankedSampleDays()).publicDir;
  snapshots = await createSnapshotCache({ publicDir });
  context = await testContext(snapshots, { relevance: await loadRelevanceModel(await newestModelPath()) });
  ({ call, close, url = "" } = await clientFor("real port", context));
});
afterAll(async () => {
  await close();
  snapshots.close();
});

const issue = async (tier: "free" | "pro" = "free") =>
  (await context.keys.issue({ tier, email: "reader@example.org", label: "mcp" })).key;

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "for-me-test", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { "x-api-key": key } },
    }),
  );
  return client;
}

async function forMe(client: Client, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name: "labs_for_me", arguments: args })) as CallToolResult;
  return result;
}

const restPicks = async (key: string, query = "") => {
  const answer = await call(`/v1/me/picks${query}`, { headers: { "x-api-key": key } });
  expect(answer.status).toBe(200);
  return (await answer.json()) as PersonalPicks;
};

const used = async (key: string) =>
  ((await (await call("/v1/me", { headers: { "x-api-key": key } })).json()) as { usage: { used: number } })
    .usage.used;

const ids = (list: PersonalPicks) => list.items.map((item) => item.arxiv_id);

describe("labs_for_me on the hosted server", () => {
  it("is listed, with the date and limit of GET /v1/me/picks", async () => {
    const client = await connect(await issue());
    const tool = (await client.listTools()).tools.find((listed) => listed.name === "labs_for_me");
    expect(tool?.inputSchema.properties).toMatchObject({
      date: { type: "string" },
      limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
    });
    expect(tool?.annotations?.readOnlyHint).toBe(true);
    await client.close();
  });

  it("gives a cold key the global order, the same list as GET /v1/me/picks, charged as one call", async () => {
    const key = await issue();
    const client = await connect(key);
    const result = await forMe(client, { limit: 25 });
    expect(result.isError).toBeFalsy();
    const list = result.structuredContent as PersonalPicks;
    expect(list.personal).toBe(false);
    expect(list.items).toHaveLength(25);
    expect(list.items.map((item) => item.global_rank)).toEqual(list.items.map((_, i) => i + 1));
    expect(await used(key)).toBe(1);
    expect(list).toEqual(await restPicks(key, "?limit=25"));
    // The free tier's page is 25: a larger limit is lowered and says so, as on the HTTP API.
    const capped = (await forMe(client, { limit: 100 })).structuredContent as PersonalPicks;
    expect(capped.capped).toEqual(["limit"]);
    expect(capped.items).toHaveLength(25);
    expect(await used(key)).toBe(3);
    await client.close();
  });

  it("answers each key with its own profile's list, never another key's", async () => {
    const [cold, reader] = [await issue(), await issue()];
    const coldClient = await connect(cold);
    const readerClient = await connect(reader);
    // The cold key asks first, so that a list kept for the tier would be handed to the reader.
    const global = (await forMe(coldClient, { limit: 25 })).structuredContent as PersonalPicks;
    const author = global.items.at(-1)?.authors[0] as string;
    const put = await call("/v1/me/follows", {
      method: "PUT",
      headers: { "x-api-key": reader, "content-type": "application/json" },
      body: JSON.stringify({ authors: [author], phrases: [] }),
    });
    expect(put.status).toBe(200);

    const mine = (await forMe(readerClient, { limit: 25 })).structuredContent as PersonalPicks;
    expect(mine.personal).toBe(true);
    expect(mine.items[0]?.authors).toContain(author);
    expect(mine.items[0]?.why_for_you.placed_by).toBe("followed_author");
    expect(ids(mine)).not.toEqual(ids(global));
    expect(mine).toEqual(await restPicks(reader, "?limit=25"));

    // And the reader's list does not leak back to the cold key, on the short path or the SDK's.
    const again = (await forMe(coldClient, { limit: 25 })).structuredContent as PersonalPicks;
    expect(again).toEqual(global);
    const streamed = await call(
      "/mcp",
      postJson(
        {
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "labs_for_me", arguments: { limit: 25 } },
        },
        { headers: { "x-api-key": cold, accept: "text/event-stream" } },
      ),
    );
    expect(streamed.headers.get("content-type")).toMatch(/text\/event-stream/);
    const data = /^data: (.*)$/m.exec(await streamed.text())?.[1] ?? "";
    expect(JSON.parse(data).result.structuredContent).toEqual(global);
    const readerStreamed = await call(
      "/mcp",
      postJson(
        [
          {
            jsonrpc: "2.0",
            id: 8,
            method: "tools/call",
            params: { name: "labs_for_me", arguments: { limit: 25 } },
          },
          { jsonrpc: "2.0", id: 9, method: "ping" },
        ],
        { headers: { "x-api-key": reader, accept: "application/json, text/event-stream" } },
      ),
    );
    // A batch goes through the SDK's server, made for this request with this key's list.
    const batched = (await readerStreamed.json()) as { result: { structuredContent: PersonalPicks } }[];
    expect(batched).toHaveLength(2);
    expect(batched[0]?.result.structuredContent).toEqual(mine);
    await Promise.all([coldClient.close(), readerClient.close()]);
  });

  it("refuses a malformed day before spending, and a day outside the tier's history after, as labs_papers", async () => {
    const key = await issue();
    const client = await connect(key);
    const bad = await forMe(client, { date: "2026-02-30" });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("day value is outside expected range");
    expect(await used(key)).toBe(0);
    const old = await forMe(client, { date: "2020-01-01" });
    expect(old.isError).toBe(true);
    expect(JSON.stringify(old.content)).toMatch(/outside the \d+ days of history of the free tier/);
    expect(await used(key)).toBe(1);
    await client.close();
  });
});

describe("picks mcp, with local files and no key", () => {
  it("has no labs_for_me", async () => {
    const local = await connectInMemory(publicDir);
    const names = (await local.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain("labs_papers");
    expect(names).not.toContain("labs_for_me");
    await local.close();
  });
});

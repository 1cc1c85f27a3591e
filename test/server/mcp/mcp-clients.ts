import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpSnapshots } from "../../../server/mcp/fresh-snapshots.ts";
import { createMcpServer } from "../../../server/mcp/mcp-server.ts";

export const PICKS = fileURLToPath(new URL("../../../bin/picks.js", import.meta.url));

export interface Connected {
  client: Client;
  /** Calls a tool and returns the result with its text, failing the test on a protocol error. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult & { text: string }>;
  stderr(): string;
  close(): Promise<void>;
}

function wrap(client: Client, stderr: () => string, close: () => Promise<void>): Connected {
  return {
    client,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const first = result.content[0];
      return { ...result, text: first?.type === "text" ? first.text : "" };
    },
    stderr,
    close,
  };
}

/** The server in this process, over the SDK's in-memory transport. */
export async function connectInMemory(publicDir: string): Promise<Connected> {
  const logs: string[] = [];
  const snapshots = createMcpSnapshots({ publicDir, log: (message) => logs.push(message) });
  const server = createMcpServer({ snapshots, version: "test", log: (message) => logs.push(message) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "research-picks-test", version: "0.0.0" });
  await client.connect(clientSide);
  // Listing once lets the client check every structuredContent against the advertised output schema.
  await client.listTools();
  return wrap(
    client,
    () => logs.join("\n"),
    async () => {
      await client.close();
      await server.close();
      snapshots.close();
    },
  );
}

/** The real program, `node bin/picks.js mcp --data DIR`, as a child process over stdio. */
export async function connectStdio(publicDir: string): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PICKS, "mcp", "--data", publicDir],
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "research-picks-test", version: "0.0.0" });
  await client.connect(transport);
  await client.listTools();
  return wrap(
    client,
    () => stderr,
    () => client.close(),
  );
}

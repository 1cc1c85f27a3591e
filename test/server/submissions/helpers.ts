import { mkdtemp } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AXIS_IDS, type Scores, totals } from "../../../pipeline/domain/score.ts";
import { readDataBlock } from "../../../pipeline/judge/judge-prompt.ts";
import { DEFAULT_CONFIG, type ServerConfig } from "../../../server/config.ts";
import { type AppContext, createContext } from "../../../server/context.ts";
import { createSnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import type { Store } from "../../../server/store/types.ts";
import type { SubmissionServiceOptions } from "../../../server/submissions/submission-service.ts";
import { publishedRules } from "../../helpers/rubric.ts";

/** A page server on 127.0.0.1 that counts the connections it accepts (a refused url must cause none). */
export interface PageServer {
  url: string;
  port: number;
  connections(): number;
  requests: IncomingMessage[];
  close(): Promise<void>;
}

export async function startPageServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<PageServer> {
  const requests: IncomingMessage[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// An OpenAI-compatible chat model on loopback: `reply` turns the data block of each request's user message into the answer.
export function startChatModel(reply: (data: Record<string, unknown>) => string): Promise<PageServer> {
  return startPageServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on("end", () => {
      const body = JSON.parse(text) as { messages: Array<{ content: string }> };
      const content = reply(readDataBlock(body.messages[1]?.content ?? "") as Record<string, unknown>);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
        }),
      );
    });
  });
}

export const ABOUT_PAGE = `<!doctype html><html><head><title>Harbor runtime</title>
<meta name="description" content="Harbor is an open-source agent runtime with sandboxed tool calling.">
<style>body { color: red }</style><script>var tracking = "agent runtime sandbox";</script></head>
<body><h1>Harbor</h1><p>Harbor runs agents in isolated sandboxes with scheduling and tool calling.</p>
<p>Every tool call is logged with provenance for audit, and a human approves risky actions.</p>
<p>It speaks the Model Context Protocol (MCP) and keeps agent memory in a versioned store.</p></body></html>`;

export const SUBMISSION = {
  runtime_name: "Harbor",
  vendor: "Harbor Labs",
  description:
    "Harbor is an agent runtime that schedules multi-agent workflows, runs tool calls in sandboxes " +
    "and records an audit log of every action for human oversight.",
  contact_email: "founders@harbor.example",
};

/** An app context over a memory store whose submissions may fetch from loopback (the test-only setting). */
export async function submissionContext(
  options: {
    store?: Store;
    config?: Partial<ServerConfig>;
    submissions?: Partial<SubmissionServiceOptions>;
  } = {},
): Promise<AppContext> {
  const publicDir = await mkdtemp(join(tmpdir(), "picks-submissions-"));
  return createContext({
    version: "0.1.0",
    snapshots: await createSnapshotCache({ publicDir }),
    store: options.store ?? (await createMemoryStore()),
    config: { ...DEFAULT_CONFIG, ...options.config },
    log: () => {},
    submissions: {
      score: publishedRules,
      ...options.submissions,
      settings: { allowLoopbackFetch: true, pollIntervalMs: 50, ...options.submissions?.settings },
    },
  });
}

/** Polls `probe` until it returns a value, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Scores with the given axis levels (A1..A9) and REG FIT, for tests that need known totals. */
export function fixedScores(levels: readonly number[], regFit = 2): Scores {
  const axes = Object.fromEntries(
    AXIS_IDS.map((id, i) => [id, { score: levels[i] ?? 0, evidence: [{ signal: "fixed", text: "test" }] }]),
  ) as Scores["axes"];
  return {
    scorer: "rules",
    rubric_version: "test",
    axes,
    ...totals(axes),
    reg_fit: { score: regFit, rationale: "test", evidence: [] },
  };
}

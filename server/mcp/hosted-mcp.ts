import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import {
  isInitializeRequest,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  type ListToolsResult,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { LRUCache } from "lru-cache";
import { FastResponse } from "srvx";
import type { z } from "zod";
import type { CountToolCall } from "../metrics/service-metrics.ts";
import { FOR_ME_TOOL, ForMeInputSchema, forMeTool, type ReaderPicks } from "./for-me-tool.ts";
import type { McpSnapshots } from "./fresh-snapshots.ts";
import { type AnyReadOnlyTool, createMcpServer, readOnlyTools } from "./mcp-server.ts";
import { checkToolCall, type ReadOnlyTool, runToolCall } from "./read-only-tool.ts";
import { OWNER_ACCESS, type ToolAccess } from "./tool-access.ts";
import { parseToolArguments } from "./tool-input.ts";

// The hosted server is stateless: each POST gets its own server and transport, lives for that one
// request and keeps nothing, so any process of a cluster (or any machine behind a balancer) can
// answer any request. The SDK's transport does the protocol: header checks, JSON-RPC validation,
// dispatch, and the errors a client expects (-32700, -32600, 406, 415).

/** The media type an answer can take, from the client's Accept; JSON when it takes both. */
export type AnswerForm = "json" | "sse";

/**
 * Which answer form the client accepts, honouring wildcards and `q=0`; undefined when neither.
 * A missing Accept accepts anything (RFC 9110).
 * @example acceptedForm("text/event-stream") // "sse"
 */
export function acceptedForm(accept: string | null): AnswerForm | undefined {
  if (accept === null || accept.trim() === "") return "json";
  let json = false;
  let sse = false;
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const q = params.find((param) => param.startsWith("q="));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (range === "*/*" || range === "application/*" || range === "application/json") json = true;
    if (range === "*/*" || range === "text/*" || range === "text/event-stream") sse = true;
  }
  return json ? "json" : sse ? "sse" : undefined;
}

/** A JSON-RPC error answer in the SDK transport's own shape (`id` null: no request was read). */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return new FastResponse(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Whether a tool of this name exists and takes these arguments. */
type ArgumentCheck = (name: string, args: Plain | undefined) => boolean;

/** The argument check over `inputs`: each call is checked, by the schema the tool itself runs. */
function argumentCheck(inputs: ReadonlyMap<string, z.ZodObject>): ArgumentCheck {
  return (name, args) => {
    const input = inputs.get(name);
    return input !== undefined && parseToolArguments(name, input, args).ok;
  };
}

/**
 * Whether a tools/call message will run a tool: it names a tool and its arguments parse. One that
 * does not gets an isError result and, like a 422 on the HTTP API, spends nothing.
 */
function callsATool(message: Plain, takes: ArgumentCheck): boolean {
  const params = isPlain(message.params) ? message.params : {};
  if (typeof params.name !== "string") return false;
  const args = params.arguments === undefined || isPlain(params.arguments) ? params.arguments : null;
  return args !== null && takes(params.name, args);
}

/** What a POST body asks for: tool calls that will run (quota) and the other messages (the free rate). */
export interface CallPlan {
  toolCalls: number;
  freeMessages: number;
}

const NOTHING: CallPlan = { toolCalls: 0, freeMessages: 0 };
const ONE_CALL: CallPlan = { toolCalls: 1, freeMessages: 0 };
const ONE_FREE: CallPlan = { toolCalls: 0, freeMessages: 1 };

/**
 * What a POST body will cost, decided before anything is spent. A body the transport refuses whole
 * (a batch over its 100 messages, a message that is not JSON-RPC, initialize in a batch, an
 * unsupported protocol version) costs nothing. Otherwise each tools/call that a tool will run spends
 * quota, once per id (the transport answers an id once), and every other message counts against the
 * free rate: initialize, tools/list, ping, notifications, and calls that end in an isError result
 * without running (unknown tool, arguments that do not parse, a task the server does not offer).
 */
function planOf(body: unknown, protocolVersion: string | null, takes: ArgumentCheck): CallPlan {
  if (protocolVersion !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)) return NOTHING;
  // A lone tools/call of plainToolCall's shape, without `_meta`, is a JSON-RPC request by its
  // construction: the SDK schema's parses of it (about 3 µs of a hosted call) would say nothing more.
  const call = plainToolCall(body);
  if (call !== undefined && !("_meta" in ((body as Plain).params as Plain))) {
    return callsATool(body as Plain, takes) ? ONE_CALL : ONE_FREE;
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > MAX_BATCH_SIZE) return NOTHING;
  if (!messages.every((message) => JSONRPCMessageSchema.safeParse(message).success)) return NOTHING;
  if (messages.length > 1 && messages.some(isInitializeRequest)) return NOTHING;
  const ids = new Set<string | number>();
  for (const message of messages) {
    if (
      isJSONRPCRequest(message) &&
      message.method === "tools/call" &&
      (message.params as Plain | undefined)?.task === undefined &&
      callsATool(message as Plain, takes)
    ) {
      ids.add(message.id);
    }
  }
  return { toolCalls: ids.size, freeMessages: messages.length - ids.size };
}

const BOTH = "application/json, text/event-stream";

/**
 * The transport insists that a POST accepts both forms, which the protocol asks of clients; a client
 * that accepts only one still gets an answer it can read, in that form.
 */
function withBothAccepted(request: Request): Request {
  const accept = request.headers.get("accept") ?? "";
  if (accept.includes("application/json") && accept.includes("text/event-stream")) return request;
  const headers = new Headers(request.headers);
  headers.set("accept", BOTH);
  return new Request(request.url, { method: request.method, headers });
}

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const only = (value: Plain, keys: readonly string[]) => Object.keys(value).every((key) => keys.includes(key));

/**
 * The one message the fast path answers: a lone `tools/call` of a known tool with plain arguments,
 * nothing the SDK would treat differently (tasks, other fields). Anything else goes to the SDK.
 */
function plainToolCall(
  body: unknown,
): { id: string | number; name: string; args: Plain | undefined } | undefined {
  if (!isPlain(body) || body.jsonrpc !== "2.0" || body.method !== "tools/call") return undefined;
  if (!only(body, ["jsonrpc", "id", "method", "params"])) return undefined;
  const { id, params } = body;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (!isPlain(params) || typeof params.name !== "string" || !only(params, ["name", "arguments", "_meta"])) {
    return undefined;
  }
  if (params.arguments !== undefined && !isPlain(params.arguments)) return undefined;
  return { id: id as string | number, name: params.name, args: params.arguments };
}

/**
 * The bytes of answers kept per published generation, keys included: a labs_papers page in full is
 * up to ~100 KB, and string arguments are capped (tool-input.ts).
 */
const ANSWER_CACHE_BYTES = 8 * 1024 * 1024;

/** The reader of the server made only to answer tools/list once per tier: it runs no tool. */
const LISTING_ONLY: ReaderPicks = () => Promise.reject(new Error("the tools/list server runs no tool"));

/** A tool's result in the JSON-RPC envelope the SDK writes, up to the id. */
const answerHead = (result: object): Buffer =>
  Buffer.from(`{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":`);

/**
 * A lone `tools/list` request with nothing the SDK would treat differently; its answer is the same
 * for every request of a tier, so it is made once per tier.
 */
function plainToolsList(body: unknown): { id: string | number } | undefined {
  if (!isPlain(body) || body.jsonrpc !== "2.0" || body.method !== "tools/list") return undefined;
  if (!only(body, ["jsonrpc", "id", "method", "params"])) return undefined;
  const { id, params } = body;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (params !== undefined && !(isPlain(params) && only(params, ["_meta"]))) return undefined;
  return { id: id as string | number };
}

export interface HostedMcp {
  /** What the body will cost: tool calls that run (quota) and other messages (the free rate). */
  plan(body: unknown, protocolVersion: string | null): CallPlan;
  /**
   * Answers one POST /mcp whose body is already read and parsed, as the caller's tier allows: a
   * Response, or a 200 JSON answer as the parts of its bytes.
   */
  answer(
    request: Request,
    body: unknown,
    caller: { access: ToolAccess; form: AnswerForm; reader: ReaderPicks },
  ): Promise<Response | SplitJsonBody>;
}

/** A 200 `application/json` answer whose bytes are these parts, one after the other. */
export interface SplitJsonBody {
  parts: readonly Buffer[];
}

/**
 * The hosted server over the published snapshots. Initialize, tools/list, batches, event streams and
 * every error go through the SDK's server and transport, built for the request. A lone tools/call
 * answered as JSON, the one message agents repeat, takes a shorter path to the same bytes: the tool
 * run by the same function the SDK calls (`callReadOnlyTool`), its result in the JSON-RPC envelope
 * the SDK writes, `{"result":...,"jsonrpc":"2.0","id":...}`, and kept per published generation,
 * since the tools only read. Measured on the bench's labs_papers call: the SDK path costs about 3 ms
 * of CPU (0.6 ms building the server, 0.4 ms re-checking an answer built from the schema, the rest in
 * the transport), far below the target of a quarter of bare node:http; the short path is under 0.1 ms.
 * test/server/mcp/hosted-http.test.ts holds both paths to the same answers.
 */
export function createHostedMcp(options: {
  snapshots: McpSnapshots;
  version: string;
  log: (message: string) => void;
  countToolCall?: CountToolCall;
}): HostedMcp {
  const { snapshots, log, countToolCall = () => {} } = options;
  const toolsByTier = new Map<string, Map<string, AnyReadOnlyTool>>();
  const toolsFor = (access: ToolAccess) => {
    const name = access.tier ?? "";
    let tools = toolsByTier.get(name);
    if (!tools) {
      tools = new Map(readOnlyTools(snapshots, access).map((tool) => [tool.name, tool]));
      toolsByTier.set(name, tools);
    }
    return tools;
  };
  // Every tier has the same tools with the same arguments; only what they may answer differs.
  // labs_for_me is made for each call, bound to the caller's key, and is never kept in `toolsFor`.
  const takes = argumentCheck(
    new Map<string, z.ZodObject>([
      ...[...toolsFor(OWNER_ACCESS).values()].map((tool) => [tool.name, tool.input] as const),
      [FOR_ME_TOOL, ForMeInputSchema],
    ]),
  );
  // The answers' bytes up to the id, ready to send, for the generation of days they were made from:
  // a reload starts an empty cache, and a call still running on the old days writes to the old one.
  let kept: { days: object; answers: LRUCache<string, Buffer> } | undefined;
  const answersOf = (days: object): LRUCache<string, Buffer> => {
    if (kept?.days !== days) {
      const answers = new LRUCache<string, Buffer>({
        maxSize: ANSWER_CACHE_BYTES,
        sizeCalculation: (head, key) => head.byteLength + key.length * 2,
      });
      kept = { days, answers };
    }
    return kept.answers;
  };
  const listHeads = new Map<string, Promise<{ list: ListToolsResult; head: Buffer }>>();

  // The SDK's own tools/list answer, asked once per tier: it converts every schema
  // to JSON Schema on each call (about 2.6 ms), which a batch of 100 made 260 ms of CPU for one free
  // request.
  const listThroughSdk = async (access: ToolAccess) => {
    const server = createMcpServer({ ...options, access, reader: LISTING_ONLY });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const request = new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        accept: BOTH,
        "content-type": "application/json",
        "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
      },
    });
    const parsedBody = { jsonrpc: "2.0", id: 0, method: "tools/list" };
    const response = await transport.handleRequest(request, { parsedBody });
    const { result } = (await response.json()) as { result: ListToolsResult };
    void server.close();
    return { list: result, head: answerHead(result) };
  };
  const toolsListOf = (access: ToolAccess) => {
    const name = access.tier ?? "";
    let listed = listHeads.get(name);
    if (!listed) {
      listed = listThroughSdk(access);
      listHeads.set(name, listed);
      listed.catch(() => listHeads.delete(name));
    }
    return listed;
  };
  // The kept head and the id are sent as two parts, so a 35 KB answer is not copied for its id.
  const withId = (head: Buffer, id: string | number): SplitJsonBody => ({
    parts: [head, Buffer.from(`${JSON.stringify(id)}}`)],
  });

  // The caller's own list: never kept here, where answers are shared by a tier (the reader service
  // keeps each key's list by its profile version).
  const forMeAnswer = async (
    call: NonNullable<ReturnType<typeof plainToolCall>>,
    access: ToolAccess,
    reader: ReaderPicks,
  ) => {
    const tool = forMeTool(snapshots, access, reader);
    return withId(
      answerHead(await runToolCall(tool, checkToolCall(tool, call.args), log, countToolCall)),
      call.id,
    );
  };

  const fastAnswer = async (call: NonNullable<ReturnType<typeof plainToolCall>>, access: ToolAccess) => {
    const tool = toolsFor(access).get(call.name) as ReadOnlyTool<z.ZodObject, z.ZodObject> | undefined;
    if (!tool) return undefined;
    await snapshots.refresh();
    const checked = checkToolCall(tool, call.args);
    // A refusal is neither kept nor looked up: only checked arguments are a key, by their parsed value.
    if (!checked.ok) return withId(answerHead(await runToolCall(tool, checked, log, countToolCall)), call.id);
    const cache = answersOf(snapshots.days());
    const key = `${access.tier}\u0000${call.name}\u0000${[...checked.given].sort().join(",")}\u0000${JSON.stringify(checked.value)}`;
    let head = cache.get(key);
    // A kept answer is a successful call answered again; one made now is counted by runToolCall.
    if (head !== undefined) countToolCall(call.name, "ok");
    else {
      const answer = await runToolCall(tool, checked, log, countToolCall);
      head = answerHead(answer);
      if (!answer.failed && !answer.isError) cache.set(key, head);
    }
    return withId(head, call.id);
  };

  return {
    plan: (body, protocolVersion) => planOf(body, protocolVersion, takes),
    async answer(request, body, caller) {
      const version = request.headers.get("mcp-protocol-version");
      const plain =
        caller.form === "json" &&
        isJsonContentType(request.headers.get("content-type")) &&
        (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version));
      const call = plain ? plainToolCall(body) : undefined;
      if (call?.name === FOR_ME_TOOL) return forMeAnswer(call, caller.access, caller.reader);
      if (call) {
        const fast = await fastAnswer(call, caller.access);
        if (fast) return fast;
      }
      const listing = plain ? plainToolsList(body) : undefined;
      const listed = await toolsListOf(caller.access);
      if (listing) return withId(listed.head, listing.id);
      const server = createMcpServer({
        snapshots: options.snapshots,
        version: options.version,
        log: options.log,
        countToolCall,
        access: caller.access,
        reader: caller.reader,
        toolsList: listed.list,
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: caller.form === "json",
      });
      await server.connect(transport);
      const response = await transport.handleRequest(withBothAccepted(request), { parsedBody: body });
      // An event stream is still being written; its transport ends it after the last answer and is
      // then collected with the server. A JSON answer is complete, so both can go now.
      if (caller.form === "json") void server.close();
      return response;
    },
  };
}

import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import type { H3 } from "h3";
import { FastResponse } from "srvx";
import { z } from "zod";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import { SCOPES_SUPPORTED } from "../../pipeline/domain/oauth-authorize.ts";
import { JSON_TYPE } from "../../pipeline/domain/published-files.ts";
import { TIERS } from "../../pipeline/domain/tiers.ts";
import { bearerToken } from "../access/bearer-token.ts";
import { limitByKey, mergedRateHeaders, rateRefusal } from "../access/key-limit.ts";
import type { KeyRecord } from "../access/key-service.ts";
import { authFailure, KEY_IN_QUERY, keyInQuery, spendOrRefuse } from "../access/keyed.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail, methodNotAllowed, notFound } from "../http/answers.ts";
import type { RouteMethods } from "../http/route-table.ts";
import { acceptedForm, jsonRpcError, type SplitJsonBody } from "../mcp/hosted-mcp.ts";
import { noteKey } from "../metrics/request-notes.ts";
import { baseUrlOf, resourceMetadataOf, resourceOf } from "../oauth/oauth-answers.ts";
import { isSecretOf } from "../oauth/secrets.ts";
import type { PathDoc } from "../openapi/operation.ts";
import { perKeyText, quotaText } from "../openapi/rate-limits.ts";
import { nestingDepthExceeds } from "../validation/nesting-depth.ts";
import { readBodyLimited } from "../validation/read-body.ts";

/** The route, one string for the router, the fast path (server/http/fast-routes.ts) and the metrics label. */
export const MCP_ROUTE = "/mcp";

/** Tool arguments are a few hundred bytes; a batch of the most the SDK takes (100) still fits. */
const MCP_BODY_MAX_BYTES = 256 * 1024;
/** JSON-RPC messages with flat tool arguments nest 4 or 5 levels; anything past this is refused unread. */
const MAX_JSON_DEPTH = 32;

// Not keyed.ts's: /mcp also takes the key as a bearer token, so its answer says so.
const HOW_TO_GET_A_KEY =
  "Get a free key with POST /v1/keys and send it in the X-API-Key header or as Authorization: Bearer <key>.";

// What the document shows of a JSON-RPC message; the SDK's transport checks the real thing.
const JsonRpcMessageSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.int()]).optional().describe("absent on a notification"),
  method: z.string().describe("initialize, tools/list, tools/call, notifications/initialized, ping"),
  params: z.record(z.string(), z.unknown()).optional(),
});

const JsonRpcAnswerSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.int()]).nullable(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

const quotaHeaderDocs = { RateLimit: false, "RateLimit-Policy": false } as const;

/** The operations of this file, for the OpenAPI document. */
export const mcpPaths: readonly PathDoc[] = [
  {
    route: MCP_ROUTE,
    post: {
      operationId: "mcp",
      summary: "MCP server (Streamable HTTP)",
      description:
        "The Model Context Protocol server of `picks mcp` over the Streamable HTTP transport (protocol " +
        "versions 2025-06-18 and 2025-03-26), stateless: no session, any instance answers any request. " +
        "Tools labs_papers, labs_paper, labs_axes and labs_stats, with the tier's history and page size " +
        "applied as for GET /v1/papers, and labs_for_me, the key's own list of GET /v1/me/picks. The answer is JSON, or an event stream (text/event-stream) for " +
        "a client that accepts only that. GET and DELETE answer 405: there is no stream or session to " +
        "open or end. A browser origin not in MCP_ALLOWED_ORIGINS is refused; an allowed one's preflight " +
        "(OPTIONS) passes, and its answers expose WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, " +
        "the RateLimit headers and Retry-After. Requests without Origin are allowed, and get no CORS " +
        "headers. The key may also come as `Authorization: Bearer <key>`.",
      tags: ["mcp"],
      keyed: true,
      bearer: true,
      rateLimit:
        `Each tools/call message that runs a tool ${quotaText().replace(/^Spends/, "spends")} ` +
        "A batch is checked against what is left before any of it is spent: it fits whole or is a 429 " +
        "that spends nothing; a repeated id is one call. Every other message (initialize, tools/list, " +
        "ping, notifications, and calls refused before they run) spends no quota and counts against " +
        `a per-key rate instead, a batch as its parts. ${perKeyText("Messages that spend no quota", DEFAULT_CONFIG.mcpFreeRate, "MCP_FREE_RATE_LIMIT")} ` +
        `Bodies nested deeper than ${MAX_JSON_DEPTH} levels are refused unread (-32602).`,
      body: JsonRpcMessageSchema,
      responses: {
        200: {
          description:
            "The JSON-RPC answer (an array of them for a batch): a tool's result, or an isError result " +
            "that says what to fix.",
          body: z.union([JsonRpcAnswerSchema, z.array(JsonRpcAnswerSchema)]),
          eventStream:
            "`event: message` events whose `data` is the JSON-RPC answer, for a client that accepts only text/event-stream.",
          headers: quotaHeaderDocs,
        },
        202: { description: "Notifications or answers only: accepted, nothing to answer." },
        400: {
          description:
            "Not JSON (-32700), not a JSON-RPC message, a batch of more than 100, JSON nested deeper " +
            `than ${MAX_JSON_DEPTH} levels (-32602), or an unsupported MCP-Protocol-Version: the ` +
            "transport's JSON-RPC error. Nothing is spent.",
          body: JsonRpcAnswerSchema,
        },
        401: {
          description:
            "No usable API key: missing, malformed, unknown or revoked, or sent in the query string. " +
            "The detail says how to get one.",
          body: HttpErrorSchema,
          headers: { "WWW-Authenticate": true },
        },
        403: { description: "A browser origin not in MCP_ALLOWED_ORIGINS.", body: HttpErrorSchema },
        406: {
          description: "Accepts neither application/json nor text/event-stream.",
          body: JsonRpcAnswerSchema,
        },
        413: {
          description: `The body is larger than ${MCP_BODY_MAX_BYTES / 1024} KiB.`,
          body: JsonRpcAnswerSchema,
        },
        415: { description: "The body is not application/json.", body: JsonRpcAnswerSchema },
        429: "TooManyRequests",
        503: "StoreUnavailable",
      },
    },
  },
];

/**
 * The key a request acts as: an API key (X-API-Key, or `Authorization: Bearer <key>`), or an OAuth
 * access token of this server in `Authorization: Bearer`, which stands for the key a person approved
 * it with. A token is taken only there: in X-API-Key it is no key, and is refused as one.
 */
async function keyOrToken(
  context: AppContext,
  request: Request,
): Promise<{ ok: true; record: KeyRecord } | { ok: false; answer: Response }> {
  const key = request.headers.get("x-api-key");
  const bearer = key === null ? bearerToken(request.headers.get("authorization")) : null;
  if (bearer !== null && isSecretOf("access", bearer)) {
    const base = baseUrlOf(context, request);
    const token = await context.oauth.authenticate(bearer, resourceOf(base));
    if (token.ok) return token;
    const challenge = `${challengeOf(base)}, error="invalid_token", error_description="${token.description}"`;
    return { ok: false, answer: unauthorized(`Invalid access token: ${token.description}.`, challenge) };
  }
  const auth = await context.keys.authenticate(key ?? bearer);
  if (auth.ok) return auth;
  const base = baseUrlOf(context, request);
  const challenge =
    auth.why === "missing" ? challengeOf(base) : `${challengeOf(base)}, error="invalid_token"`;
  return { ok: false, answer: unauthorized(authFailure(auth.why, HOW_TO_GET_A_KEY), challenge) };
}

/** RFC 9728 §5.1: where a client finds how to get a token for /mcp. */
const challengeOf = (base: string): string =>
  `${realm}, resource_metadata="${resourceMetadataOf(base)}", scope="${SCOPES_SUPPORTED.join(" ")}"`;

function unauthorized(message: string, challenge: string): Response {
  return detail(401, message, { "www-authenticate": challenge });
}

// A browser client on an origin the operator allows (MCP_ALLOWED_ORIGINS) reads the challenge that
// starts OAuth, the session a server may name, and how long to wait after a 429.
const MCP_EXPOSED_HEADERS =
  "www-authenticate, mcp-session-id, mcp-protocol-version, ratelimit, ratelimit-policy, retry-after";
const MCP_ALLOWED_HEADERS =
  "authorization, content-type, accept, x-api-key, mcp-protocol-version, mcp-session-id, last-event-id";

/** The CORS headers of an answer to an allowed origin; none for a request without Origin, as before. */
function corsOf(request: Request): Record<string, string> | undefined {
  const origin = request.headers.get("origin");
  if (origin === null) return undefined;
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": MCP_EXPOSED_HEADERS,
    vary: "origin",
  };
}

/** The preflight of an allowed origin (the caller refused every other): POST with its headers may follow. */
function mcpPreflight(request: Request): Response {
  const headers = new Headers(corsOf(request));
  headers.set("access-control-allow-methods", "POST, OPTIONS");
  headers.set("access-control-allow-headers", MCP_ALLOWED_HEADERS);
  headers.set("access-control-max-age", "600");
  return new Response(null, { status: 204, headers });
}

/** The 403 of a browser origin that may not call /mcp; undefined when allowed. */
export function refusedOrigin(request: Request, allowed: readonly string[]): Response | undefined {
  const origin = request.headers.get("origin");
  if (origin === null || allowed.includes(origin.toLowerCase())) return undefined;
  return detail(
    403,
    `Origin ${origin} may not call /mcp: browsers may call it only from the origins the operator lists ` +
      "in MCP_ALLOWED_ORIGINS. Agents and other clients that send no Origin are not affected.",
  );
}

const realm = 'Bearer realm="research-picks"';
// Shared: a decoder without `stream` keeps no state between calls.
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * One POST /mcp, its origin already allowed: the route and the fast path both answer through it, and
 * note the key it acted as (once known) for the request log; an allowed origin gets its CORS headers
 * on either. `query` is the request's query string, read apart so that the fast path need not parse
 * the URL.
 */
export async function answerMcpPost(
  context: AppContext,
  request: Request,
  query: URLSearchParams,
): Promise<{ answer: Response | SplitMcpAnswer; key?: KeyRecord }> {
  const answered = await answerKeyed(context, request, query);
  const cors = corsOf(request);
  if (cors === undefined) return answered;
  const { answer } = answered;
  for (const [name, value] of Object.entries(cors)) {
    if (answer instanceof Response) answer.headers.set(name, value);
    else answer.headers[name] = value;
  }
  return answered;
}

async function answerKeyed(
  context: AppContext,
  request: Request,
  query: URLSearchParams,
): Promise<{ answer: Response | SplitMcpAnswer; key?: KeyRecord }> {
  if (keyInQuery(query)) {
    return { answer: unauthorized(KEY_IN_QUERY, `${realm}, error="invalid_request"`) };
  }
  const auth = await keyOrToken(context, request);
  if (!auth.ok) return { answer: auth.answer };
  return { answer: await answerAs(context, request, auth.record), key: auth.record };
}

/** POST /mcp for a caller whose key is known: the body read, its cost spent, then the answer. */
async function answerAs(
  context: AppContext,
  request: Request,
  record: KeyRecord,
): Promise<Response | SplitMcpAnswer> {
  const hosted = context.mcp;
  const form = acceptedForm(request.headers.get("accept"));
  if (form === undefined) {
    return jsonRpcError(
      406,
      -32000,
      "Not Acceptable: Client must accept application/json or text/event-stream",
    );
  }
  // Refused before anything is read or spent, as the transport would refuse it after.
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return jsonRpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  }
  const read = await readBodyLimited(request, MCP_BODY_MAX_BYTES);
  if (!read.ok) return jsonRpcError(413, -32000, `Payload Too Large: at most ${MCP_BODY_MAX_BYTES} bytes`);
  let text: string;
  try {
    text = UTF8.decode(read.bytes);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
  if (nestingDepthExceeds(text, MAX_JSON_DEPTH)) {
    return jsonRpcError(
      400,
      -32602,
      `Invalid params: JSON nested deeper than ${MAX_JSON_DEPTH} levels; tool arguments are flat`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
  // JSON-RPC calls an empty batch invalid; the transport would take it as nothing to answer.
  if (Array.isArray(body) && body.length === 0)
    return jsonRpcError(400, -32600, "Invalid Request: empty batch");
  const plan = hosted.plan(body, request.headers.get("mcp-protocol-version"));
  const headers: Record<string, string>[] = [];
  if (plan.freeMessages > 0) {
    const rate = context.config.mcpFreeRate;
    const free = await limitByKey(context, rate, record.id, plan.freeMessages);
    if (!free.allowed) return rateRefusal(free, "MCP messages that spend no quota", rate);
    headers.push(free.headers);
  }
  if (plan.toolCalls > 0) {
    const answer = await spendOrRefuse(context, record, plan.toolCalls);
    if (answer instanceof Response) return answer;
    headers.push(answer.headers);
  }
  const limits = TIERS[record.tier];
  const answer = await hosted.answer(request, body, {
    access: { tier: record.tier, historyDays: limits.history_days, maxLimit: limits.max_limit },
    form,
    // labs_for_me: this key's list, and no other's.
    reader: (date, limit, capped) => context.readers.picksJson(record, date, limit, capped),
  });
  const rateHeaders = mergedRateHeaders(...headers);
  if (!(answer instanceof Response)) return { parts: answer.parts, headers: rateHeaders };
  for (const [name, value] of Object.entries(rateHeaders)) answer.headers.set(name, value);
  return answer;
}

/** A 200 JSON answer in parts (hosted-mcp.ts), with the rate headers of what it spent. */
export interface SplitMcpAnswer extends SplitJsonBody {
  headers: Record<string, string>;
}

/** An answer in parts as one Response, for the app's route. */
const partsResponse = ({ parts, headers }: SplitMcpAnswer): Response =>
  new FastResponse(Buffer.concat(parts), {
    status: 200,
    headers: { ...headers, "content-type": JSON_TYPE },
  });

/** The hosted MCP server: the tools of `picks mcp` over Streamable HTTP, keyed and counted. */
export function registerMcpRoutes(app: H3, context: AppContext): void {
  app.all(
    MCP_ROUTE,
    async (event) => {
      if (event.url.pathname !== MCP_ROUTE) return notFound();
      const refused = refusedOrigin(event.req, context.config.mcpAllowedOrigins);
      if (refused) return refused;
      if (event.req.method === "OPTIONS" && event.req.headers.has("origin")) return mcpPreflight(event.req);
      if (event.req.method !== "POST") return methodNotAllowed(["POST"]);
      const { answer, key } = await answerMcpPost(context, event.req, event.url.searchParams);
      if (key) noteKey(event.context, key);
      return answer instanceof Response ? answer : partsResponse(answer);
    },
    { meta: { methods: ["POST"] } satisfies RouteMethods },
  );
}

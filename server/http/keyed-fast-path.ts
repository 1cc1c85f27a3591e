import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeRequest } from "srvx/node";
import type { KeyRecord } from "../access/key-service.ts";
import { keepPrivate, PRIVATE_CACHE_CONTROL } from "../access/keyed.ts";
import type { AppContext } from "../context.ts";
import { notedKey } from "../metrics/request-notes.ts";
import { answerMcpPost, type McpParts, refusedOrigin } from "../routes/mcp-routes.ts";
import { answerPapersList } from "../routes/papers-routes.ts";
import { JSON_TYPE, withHeader } from "./answers.ts";
import { failedAnswer, plainly, sendResponse } from "./node-answer.ts";

// The two keyed requests that clients repeat at volume, answered before the router through the same
// functions as the app's routes, so with the same bytes, headers and refusals. What they skip is the
// h3 layer around those functions: the router, the event, the onResponse hook and, for the list of
// papers, the Request, Headers and Response objects themselves (`npm run profile -- papers|mcp`).

const PAPERS = "/v1/papers";
const MCP = "/mcp";

/** The query's text, without "?". */
const searchOf = (url: string): string => {
  const at = url.indexOf("?");
  return at === -1 ? "" : url.slice(at + 1);
};
const queryOf = (url: string): URLSearchParams => new URLSearchParams(searchOf(url));

/** True for `GET /v1/papers` written plainly. */
export const isPapersList = (req: IncomingMessage): boolean =>
  req.method === "GET" && plainly(req.url ?? "", PAPERS);

/** True for `POST /mcp` written plainly. */
export const isMcpPost = (req: IncomingMessage): boolean =>
  req.method === "POST" && plainly(req.url ?? "", MCP);

/**
 * `GET /v1/papers` through `answerPapersList`; a 200 is written from its bytes, with no Response.
 * Settles with the key's record when it was answered, for the request log.
 */
export async function servePapersFast(
  context: AppContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<KeyRecord | undefined> {
  const key = req.headers["x-api-key"];
  let answer: Awaited<ReturnType<typeof answerPapersList>>;
  try {
    const search = searchOf(req.url ?? "");
    const params = new URLSearchParams(search);
    answer = await answerPapersList(context, typeof key === "string" ? key : null, params, search);
  } catch (error) {
    answer = await failedAnswer(context, error);
  }
  if (answer instanceof Response) {
    // A refusal (401, 422, 429, 503): rare enough to go through its Response as the app sends it.
    keepPrivate(answer);
    await sendResponse(res, answer, context.log);
    return undefined;
  }
  res.writeHead(200, {
    "cache-control": PRIVATE_CACHE_CONTROL,
    "content-type": JSON_TYPE,
    ...answer.headers,
    "content-length": answer.body.byteLength,
  });
  res.end(answer.body);
  return answer.key;
}

/**
 * `POST /mcp` through `answerMcpPost`, over srvx's lazy Request on the Node request. A kept tool
 * answer comes as parts, written corked so that they leave in one write, with no Response. Settles
 * with the key the request acted as, noted in the request's context by the key check.
 */
export async function serveMcpFast(
  context: AppContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<KeyRecord | undefined> {
  const request = new NodeRequest({ req, res }) as unknown as Request & { context?: Record<string, unknown> };
  // As h3 gives its event: where the key check notes the key for the log.
  const notes: Record<string, unknown> = {};
  request.context = notes;
  let answer: Response | McpParts;
  try {
    answer =
      refusedOrigin(request, context.config.mcpAllowedOrigins) ??
      (await answerMcpPost(context, request, queryOf(req.url ?? "")));
  } catch (error) {
    answer = await failedAnswer(context, error);
  }
  if (answer instanceof Response) {
    keepPrivate(answer);
    await sendResponse(res, answer, context.log);
    return notedKey(notes);
  }
  let length = 0;
  for (const part of answer.parts) length += part.byteLength;
  const headers = withHeader(answer.headers, "content-type", JSON_TYPE);
  headers["cache-control"] = PRIVATE_CACHE_CONTROL;
  headers["content-length"] = String(length);
  res.writeHead(200, headers);
  res.cork();
  for (const part of answer.parts) res.write(part);
  res.end();
  res.uncork();
  return notedKey(notes);
}

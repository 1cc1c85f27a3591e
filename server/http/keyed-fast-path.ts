import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeRequest } from "srvx/node";
import { JSON_TYPE } from "../../pipeline/domain/published-files.ts";
import type { KeyRecord } from "../access/key-service.ts";
import { keepPrivate, PRIVATE_CACHE_CONTROL } from "../access/keyed.ts";
import type { AppContext } from "../context.ts";
import { answerMcpPost, refusedOrigin, type SplitMcpAnswer } from "../routes/mcp-routes.ts";
import { answerPapersList } from "../routes/papers-routes.ts";
import { failedAnswer, sendResponse, withHeader } from "./node-answer.ts";

// The two keyed requests that clients repeat at volume, as fast routes (./fast-routes.ts). The list
// of papers also skips the Request, Headers and Response objects (`npm run profile -- papers|mcp`).

/**
 * The query string as a URL's `searchParams` reads it, and so as Starlette does: the text from the
 * first "?", of which URLSearchParams drops exactly that one ("??days=1" names `?days`).
 */
const queryOf = (url: string): URLSearchParams => {
  const at = url.indexOf("?");
  return new URLSearchParams(at === -1 ? "" : url.slice(at));
};

/** `GET /v1/papers` through `answerPapersList`; a 200 is written from its bytes, with no Response. */
export async function servePapersFast(
  context: AppContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ key?: KeyRecord }> {
  const key = req.headers["x-api-key"];
  let answer: Awaited<ReturnType<typeof answerPapersList>>;
  try {
    answer = await answerPapersList(context, typeof key === "string" ? key : null, queryOf(req.url ?? ""));
  } catch (error) {
    answer = await failedAnswer(context, error);
  }
  if (answer instanceof Response) {
    // A refusal (401, 422, 429, 503): rare enough to go through its Response as the app sends it.
    keepPrivate(answer);
    await sendResponse(res, answer, context.log);
    return {};
  }
  res.writeHead(200, {
    "cache-control": PRIVATE_CACHE_CONTROL,
    "content-type": JSON_TYPE,
    ...answer.headers,
    "content-length": answer.body.byteLength,
  });
  res.end(answer.body);
  return { key: answer.key };
}

/**
 * `POST /mcp` through `answerMcpPost`, over srvx's lazy Request on the Node request. A kept tool
 * answer comes as parts, written corked so that they leave in one write, with no Response.
 */
export async function serveMcpFast(
  context: AppContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ key?: KeyRecord }> {
  const request = new NodeRequest({ req, res }) as unknown as Request;
  let answer: Response | SplitMcpAnswer;
  let key: KeyRecord | undefined;
  try {
    const refused = refusedOrigin(request, context.config.mcpAllowedOrigins);
    if (refused) answer = refused;
    else ({ answer, key } = await answerMcpPost(context, request, queryOf(req.url ?? "")));
  } catch (error) {
    answer = await failedAnswer(context, error);
  }
  if (answer instanceof Response) {
    keepPrivate(answer);
    await sendResponse(res, answer, context.log);
    return { key };
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
  return { key };
}

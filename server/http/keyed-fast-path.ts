import type { IncomingMessage, ServerResponse } from "node:http";
import { PRIVATE_CACHE_CONTROL } from "../access/keyed.ts";
import type { AppContext } from "../context.ts";
import { answerPapersList } from "../routes/papers-routes.ts";
import { JSON_TYPE } from "./answers.ts";
import { errorAnswer } from "./error-answer.ts";

const PAPERS = "/v1/papers";

/**
 * True for `GET /v1/papers` written plainly (no trailing slash, no escapes or dot segments in the
 * path, no fragment): the one keyed request clients repeat at volume. Anything else goes to the app.
 */
export function isPapersList(req: IncomingMessage): boolean {
  if (req.method !== "GET") return false;
  const url = req.url ?? "";
  return (url === PAPERS || url.startsWith(`${PAPERS}?`)) && !url.includes("#");
}

/**
 * Answers `GET /v1/papers` before the router, through the same function as the app's route
 * (`answerPapersList`), so with the same bytes, headers and refusals. What it skips is the h3 layer
 * around them: the Request and Headers objects built per request, the router, the onResponse hook
 * that reads and rewrites cache-control, and the Response's conversion back to node:http, about a
 * quarter of the CPU of a keyed request (`npm run profile -- papers`).
 */
export async function servePapersFast(
  context: AppContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = req.url ?? PAPERS;
  const queryAt = url.indexOf("?");
  const params = new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1));
  const key = req.headers["x-api-key"];
  let answer: Awaited<ReturnType<typeof answerPapersList>>;
  try {
    answer = await answerPapersList(context, typeof key === "string" ? key : null, params);
  } catch (error) {
    answer = await errorAnswer(context, { status: 500, message: "Internal Server Error", cause: error });
  }
  if (answer instanceof Response) return writeResponse(res, answer);
  res.writeHead(200, {
    "cache-control": PRIVATE_CACHE_CONTROL,
    "content-type": JSON_TYPE,
    ...answer.headers,
    "content-length": answer.body.byteLength,
  });
  res.end(answer.body);
}

/** A refusal (401, 422, 429, 503), rare enough to go through its Response as the app would send it. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string | number> = { "cache-control": PRIVATE_CACHE_CONTROL };
  for (const [name, value] of response.headers) headers[name] = value;
  headers["cache-control"] = PRIVATE_CACHE_CONTROL;
  headers["content-length"] = body.byteLength;
  res.writeHead(response.status, headers);
  res.end(body);
}

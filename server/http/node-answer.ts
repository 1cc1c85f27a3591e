// What the fast paths share: they answer on Node's request and response, before the router, and must
// still answer exactly as the app would.
import type { ServerResponse } from "node:http";
import { HTTPError } from "h3";
import type { AppContext } from "../context.ts";
import { JSON_TYPE } from "./answers.ts";
import { errorAnswer } from "./error-answer.ts";

/** True when a request target is `path` written plainly: a fragment, dot segments or a trailing slash miss. */
export const plainly = (url: string, path: string): boolean =>
  (url === path || url.startsWith(`${path}?`)) && !url.includes("#");

/** What a request that threw gets, as the app's onError would answer it. */
export const failedAnswer = (context: AppContext, error: unknown): Promise<Response> =>
  errorAnswer(
    context,
    error instanceof HTTPError ? error : { status: 500, message: "Internal Server Error", cause: error },
  );

/** A Response written as the app would send it, with its length. */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string | number> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  headers["content-length"] = body.byteLength;
  res.writeHead(response.status, headers);
  res.end(body);
}

/** JSON text written with its status and headers, as `jsonText` answers through the app. */
export function writeJson(
  res: ServerResponse,
  answer: { status: number; body: string; headers?: Record<string, string> },
): void {
  const body = Buffer.from(answer.body);
  res.writeHead(answer.status, {
    ...answer.headers,
    "content-type": JSON_TYPE,
    "content-length": body.byteLength,
  });
  res.end(body);
}

// What the fast paths share: they answer on Node's request and response, before the router, and must
// still answer exactly as the app would.
import type { IncomingMessage, ServerResponse } from "node:http";
import { HTTPError } from "h3";
import { NodeRequest, sendNodeResponse } from "srvx/node";
import { JSON_TYPE } from "../../pipeline/domain/published-files.ts";
import type { KeyRecord } from "../access/key-service.ts";
import type { AppContext } from "../context.ts";
import { notedKey } from "../metrics/request-notes.ts";
import { routeLabel } from "../metrics/route-label.ts";
import { errorAnswer } from "./error-answer.ts";

/** What a served request tells the request watch: the route template that answered, and the key it acted as. */
export interface Served {
  route: string;
  key?: KeyRecord | undefined;
}

/** True when a request target is `path` written plainly: a fragment, dot segments or a trailing slash miss. */
export const isPlainTarget = (url: string, path: string): boolean =>
  (url === path || url.startsWith(`${path}?`)) && !url.includes("#");

/** What a request that threw gets, as the app's onError would answer it. */
export const failedAnswer = (context: AppContext, error: unknown): Promise<Response> =>
  errorAnswer(
    context,
    error instanceof HTTPError ? error : { status: 500, message: "Internal Server Error", cause: error },
  );

/**
 * `{ ...headers, [name]: value }` for headers (own string keys), written out. Node 20's V8 makes the
 * copy of an object literal that starts with a spread in its old generation, where one made for every
 * request piles up until the next mark-compact; Node 22, 24 and 26 make it young like any other
 * (docs/performance.md, "Leading spreads on Node 22, 24 and 26"). The fast routes are what a server
 * on Node 20 runs most, so they copy headers with this (test/architecture/leading-spreads.test.ts).
 */
export function withHeader(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
  value: string,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const key in headers) if (Object.hasOwn(headers, key)) merged[key] = headers[key] as string;
  merged[name] = value;
  return merged;
}

/** JSON text written with its status and headers, as `jsonText` answers through the app. */
export function writeJson(
  res: ServerResponse,
  answer: { status: number; body: string; headers?: Record<string, string> },
): void {
  // Written as text: Node sends the head and a text body in one write, with no Buffer made here.
  const headers = withHeader(answer.headers, "content-type", JSON_TYPE);
  headers["content-length"] = String(Buffer.byteLength(answer.body));
  res.writeHead(answer.status, headers);
  res.end(answer.body);
}

/**
 * Sends a Response through srvx, settled when it is written or when the connection closes first.
 * srvx waits for the callback of Node's `end`, which Node never calls once the connection is gone: a
 * client that left mid-request kept its request "in flight" for good, and a graceful stop then waited
 * out its whole deadline.
 */
export function sendResponse(
  res: ServerResponse,
  response: Response,
  log: (message: string) => void,
): Promise<void> {
  if (res.destroyed) {
    // Nobody to send it to: a stream behind it (an MCP event stream) is told to stop.
    response.body?.cancel().catch(() => {});
    return Promise.resolve();
  }
  let onClose: (() => void) | undefined;
  const closed = new Promise<void>((resolve) => {
    onClose = resolve;
    res.once("close", resolve);
  });
  const sent = sendNodeResponse(res, response).catch((error: unknown) => {
    log(`answer not sent: ${(error as Error)?.stack ?? error}`);
    if (!res.headersSent) res.writeHead(500).end();
    else res.destroy();
  });
  return Promise.race([sent, closed]).finally(() => res.off("close", onClose as () => void));
}

/**
 * A web handler (the h3 app's `fetch`) on Node's request and response. Settles with what the
 * request's context (h3 makes it its event's) holds: the route it matched and the key a route noted.
 */
export function nodeHandler(
  fetch: (request: Request) => Response | Promise<Response>,
  log: (message: string) => void,
): (req: IncomingMessage, res: ServerResponse) => Promise<Served> {
  return async (req, res) => {
    const request = new NodeRequest({ req, res }) as unknown as Request & {
      context?: Record<string, unknown>;
    };
    const response = await fetch(request);
    await sendResponse(res, response, log);
    const matched = request.context?.matchedRoute as { route?: string } | undefined;
    return { route: routeLabel(matched?.route), key: notedKey(request.context) };
  };
}

import { H3, type H3Event, type HTTPError } from "h3";
import { detail, json, methodNotAllowed, notFound } from "./answers.ts";
import type { AppContext } from "./context.ts";
import { checkDateParam } from "./date-param.ts";
import { matchesIfNoneMatch, type PreparedResponse } from "./prepared.ts";

/** Decodes a path segment like Starlette: a malformed escape is kept as written, never an error. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

type Handler = (event: H3Event) => Response | Promise<Response>;

/** Serves a prepared snapshot: 304 when the client already has it, no body for HEAD. */
export function sendPrepared(
  prepared: PreparedResponse,
  method: string,
  ifNoneMatch: string | null,
): Response {
  if (matchesIfNoneMatch(ifNoneMatch, prepared.etag)) {
    return new Response(null, {
      status: 304,
      headers: { etag: prepared.etag, "cache-control": prepared.headers["cache-control"] as string },
    });
  }
  const body = method === "HEAD" ? null : new Uint8Array(prepared.body);
  return new Response(body, { status: 200, headers: prepared.headers });
}

/**
 * Builds the HTTP app without listening. Every route answers FastAPI's shapes; anything unexpected
 * becomes a `{"detail"}` answer in `onError`, never a stack trace.
 */
export function createApp(context: AppContext): H3 {
  const app = new H3({
    allowMalformedURL: true,
    onError(error: HTTPError) {
      if (error.status >= 500) context.log(`unhandled error: ${error.cause ?? error.message}`);
      const status = Math.min(error.status, 500);
      return detail(status, status === 500 ? "Internal Server Error" : error.message);
    },
  });

  // Register each path once with its methods so a wrong method gets 405 with `Allow`, as Starlette does.
  const route = (path: string, handlers: Partial<Record<"GET" | "POST", Handler>>) => {
    const allow = Object.keys(handlers).flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method]));
    app.all(path, (event) => {
      const method = event.req.method === "HEAD" ? "GET" : event.req.method;
      const handler = handlers[method as "GET" | "POST"];
      return handler ? handler(event) : methodNotAllowed(allow);
    });
  };

  const snapshot = (event: H3Event, pathname: string): Response => {
    const prepared = context.snapshots.lookup(pathname);
    if (!prepared) return detail(404, "No snapshot has been published yet");
    return sendPrepared(prepared, event.req.method, event.req.headers.get("if-none-match"));
  };

  route("/health", {
    GET: () =>
      json(200, {
        status: "ok",
        version: context.version,
        latest_snapshot: context.snapshots.latestDate(),
      }),
  });
  route("/v1/stats", { GET: (event) => snapshot(event, "/v1/stats") });
  route("/v1/axes", { GET: (event) => snapshot(event, "/v1/axes") });
  route("/v1/recent", { GET: (event) => snapshot(event, "/v1/recent") });
  route("/v1/daily/latest", { GET: (event) => snapshot(event, "/v1/daily/latest") });
  route("/v1/daily/:date", {
    GET: (event) => {
      const date = safeDecode(event.context.params?.date ?? "");
      const issue = checkDateParam(date);
      if (issue)
        return json(422, {
          detail: [{ type: issue.type, loc: ["path", "date"], msg: issue.msg, input: date }],
        });
      const prepared = context.snapshots.lookup(`/v1/daily/${date}`);
      if (!prepared) return detail(404, `No snapshot for ${date}`);
      return sendPrepared(prepared, event.req.method, event.req.headers.get("if-none-match"));
    },
  });
  app.all("/**", () => notFound());
  return app;
}

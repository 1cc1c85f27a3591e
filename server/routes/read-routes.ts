import type { H3, H3Event } from "h3";
import { detail, json } from "../answers.ts";
import type { AppContext } from "../context.ts";
import { checkDateParam } from "../date-param.ts";
import { matchesIfNoneMatch, type PreparedResponse } from "../prepared.ts";
import { pathParam, route } from "../route-table.ts";

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

/** The public, unkeyed routes: health and the snapshot files (also served by the fast path). */
export function registerReadRoutes(app: H3, context: AppContext): void {
  const snapshot = (event: H3Event, pathname: string): Response => {
    const prepared = context.snapshots.lookup(pathname);
    if (!prepared) return detail(404, "No snapshot has been published yet");
    return sendPrepared(prepared, event.req.method, event.req.headers.get("if-none-match"));
  };

  route(app, "/health", {
    GET: async () => {
      const storeUp = await context.store.ping().catch(() => false);
      // Still 200 when the store is down: the static endpoints keep working, so the instance should stay in rotation.
      return json(200, {
        status: storeUp ? "ok" : "degraded",
        version: context.version,
        latest_snapshot: context.snapshots.latestDate(),
        store: { kind: context.store.kind, reachable: storeUp },
      });
    },
  });
  for (const path of ["/v1/stats", "/v1/axes", "/v1/recent", "/v1/daily/latest"]) {
    route(app, path, { GET: (event) => snapshot(event, path) });
  }
  route(app, "/v1/daily/:date", {
    GET: (event) => {
      const date = pathParam(event, "date");
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
}

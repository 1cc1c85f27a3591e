import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppContext } from "../context.ts";
import { MCP_ROUTE } from "../routes/mcp-routes.ts";
import { PAPERS_ROUTE } from "../routes/papers-routes.ts";
import { VERIFY_ROUTE } from "../routes/verify-routes.ts";
import { serveMcpFast, servePapersFast } from "./keyed-fast-path.ts";
import { isPlainTarget, type Served } from "./node-answer.ts";
import { serveVerifyFast } from "./verify-fast-path.ts";

// The requests answered before the router, through the same answer functions as their routes, so
// with the same bytes, headers and refusals (test/server/http/fast-routes.test.ts compares them
// live). What they skip is the h3 layer around those functions: the router, the event, the
// onResponse hook and, where they can, the Request, Headers and Response objects. Each stays only
// while the A/B bench shows that it pays (docs/performance.md, "Fast routes").

export interface FastRoute {
  method: "GET" | "POST";
  /** The route's path as its file exports it: what is matched here, and the metrics label. */
  path: string;
  serve(context: AppContext, req: IncomingMessage, res: ServerResponse): Promise<Pick<Served, "key">>;
}

export const FAST_ROUTES: readonly FastRoute[] = [
  { method: "GET", path: PAPERS_ROUTE, serve: servePapersFast },
  { method: "POST", path: MCP_ROUTE, serve: serveMcpFast },
  { method: "POST", path: VERIFY_ROUTE, serve: serveVerifyFast },
];

/** The fast route of a request written plainly (a fragment, dot segments or a trailing slash go to the router). */
export function fastRouteOf(
  req: Pick<IncomingMessage, "method" | "url">,
  routes: readonly FastRoute[] = FAST_ROUTES,
): FastRoute | undefined {
  const url = req.url ?? "";
  for (const route of routes) {
    if (route.method === req.method && isPlainTarget(url, route.path)) return route;
  }
  return undefined;
}

import type { H3 } from "h3";
import type { AppContext } from "../context.ts";
import { notFound } from "../http/answers.ts";
import { sendPrepared } from "../http/prepared.ts";
import { route } from "../http/route-table.ts";

/**
 * The site's routes inside the app, for requests the fast path did not answer (in-process calls): the
 * same prepared answers, looked up by path, 404 for a file that does not exist.
 */
export function registerSiteRoutes(app: H3, context: AppContext): void {
  for (const path of ["/", "/index.html", "/feed.xml", "/feed.json", "/v1/search-index.json", "/assets/**"]) {
    route(app, path, {
      GET: (event) => {
        const prepared = context.snapshots.lookup(event.url.pathname);
        if (!prepared) return notFound();
        return sendPrepared(prepared, event.req);
      },
    });
  }
}

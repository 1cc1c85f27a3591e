import type { H3 } from "h3";
import { z } from "zod";
import { FEED_CHANNELS, type FeedChannel } from "../../pipeline/domain/feed-channels.ts";
import { JsonFeedSchema } from "../../pipeline/domain/feeds.ts";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import type { AppContext } from "../context.ts";
import { notFound } from "../http/answers.ts";
import { sendPrepared } from "../http/prepared.ts";
import { route } from "../http/route-table.ts";
import type { OperationDoc, PathDoc } from "../openapi/operation.ts";
import { ConditionalHeadersSchema } from "./read-routes.ts";

const FEED_PATHS = FEED_CHANNELS.flatMap((channel) => [`/${channel.atomFile}`, `/${channel.jsonFile}`]);

/**
 * The site's routes inside the app, for requests the fast path did not answer (in-process calls): the
 * same prepared answers, looked up by path, 404 for a file that does not exist.
 */
export function registerSiteRoutes(app: H3, context: AppContext): void {
  for (const path of ["/", "/index.html", ...FEED_PATHS, "/v1/search-index.json", "/assets/**"]) {
    route(app, path, {
      GET: (event) => {
        const prepared = context.snapshots.lookup(event.url.pathname);
        if (!prepared) return notFound();
        return sendPrepared(prepared, event.req);
      },
    });
  }
}

const pascal = (slug: string): string =>
  slug.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());

function feedOperation(channel: FeedChannel, format: "atom" | "json"): OperationDoc {
  const name = channel.slug === null ? "" : pascal(channel.slug);
  const validators = { ETag: true, "Cache-Control": true } as const;
  const body =
    format === "json"
      ? { body: JsonFeedSchema, mediaType: "application/feed+json" }
      : { body: z.string().describe("an Atom 1.0 document (RFC 4287)"), mediaType: "application/atom+xml" };
  return {
    operationId: `get${name}${format === "json" ? "JsonFeed" : "AtomFeed"}`,
    summary: `${channel.label === null ? "The picks" : `Picks: ${channel.label}`} as ${
      format === "json" ? "JSON Feed 1.1" : "Atom"
    }`,
    description:
      `${channel.description} The last 14 published days, newest day first, then by rank; written by ` +
      "`picks curate` beside the snapshots, the same bytes a static host serves. A channel with no " +
      "picks is a valid feed without entries. No key.",
    tags: ["snapshots"],
    headers: ConditionalHeadersSchema,
    responses: {
      200: { description: "The feed.", ...body, headers: validators },
      304: { description: "The copy named in If-None-Match is current.", headers: validators },
      404: { description: "Nothing is published yet.", body: HttpErrorSchema },
    },
  };
}

/** The feeds, for the OpenAPI document: every channel in both formats. */
export const feedPaths: readonly PathDoc[] = FEED_CHANNELS.flatMap((channel) => [
  { route: `/${channel.atomFile}`, get: feedOperation(channel, "atom") },
  { route: `/${channel.jsonFile}`, get: feedOperation(channel, "json") },
]);

// A reader's personal feed at a capability URL: POST /v1/me/feed-token issues (and so rotates) the
// token with the key; GET /v1/feeds/for-you/{token}.xml and .json serve the feed to whoever holds the
// token, which is all a feed reader can be given. The token is in the path, so the route is logged and
// counted by its template, never its path (server/metrics/route-label.ts).

import type { H3, H3Event } from "h3";
import { FastResponse } from "srvx";
import { z } from "zod";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import {
  FEED_TOKEN_PATTERN,
  FeedTokenIssuedSchema,
  FOR_YOU_FEED_ITEMS,
  PersonalJsonFeedSchema,
} from "../../pipeline/domain/personal-feed.ts";
import { knownRefusal, limitAddressCalls } from "../access/ip-limit.ts";
import { limitByKey, rateRefusal } from "../access/key-limit.ts";
import type { KeyRecord } from "../access/key-service.ts";
import { authFailure, authorize } from "../access/keyed.ts";
import { requestIp } from "../access/request-ip.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail, json } from "../http/answers.ts";
import { matchesIfNoneMatch } from "../http/prepared.ts";
import { pathParam, route } from "../http/route-table.ts";
import { noteKey } from "../metrics/request-notes.ts";
import { baseUrlOf } from "../oauth/oauth-answers.ts";
import type { OperationDoc, PathDoc } from "../openapi/operation.ts";
import { feedTokenOwner, issueFeedToken } from "../readers/feed-tokens.ts";
import { createForYouFeeds, type FeedForm } from "../readers/for-you-feeds.ts";
import { ConditionalHeadersSchema } from "./read-routes.ts";

const FEED_TYPES: Record<FeedForm, string> = {
  atom: "application/atom+xml; charset=utf-8",
  json: "application/feed+json; charset=utf-8",
};

/** Every token that opens nothing gets these same bytes: unknown, rotated and revoked look alike. */
const NO_FEED = "No feed at this address: the token is unknown, was replaced, or its key was revoked.";

/**
 * A polling feed reader is given five minutes before it asks again; after that a poll of an unchanged
 * feed is a 304. Private: the URL is a capability, not for shared caches. No referrer: a link followed
 * from the feed in a browser must not carry the token to the page it opens.
 */
const FEED_HEADERS = { "cache-control": "private, max-age=300", "referrer-policy": "no-referrer" };

/** An unused key hash: a token that finds no key is looked up as one that does, then refused. */
const NO_KEY_HASH = "0".repeat(64);

const TokenPathSchema = z.object({
  token: z.string().describe("the feed token from POST /v1/me/feed-token (`rpf_` and 43 characters)"),
});

const feedRate =
  `Free: reads spend no quota (a feed reader polls on its own); they count against ${DEFAULT_CONFIG.feedReadRate.limit} per hour per key (FEED_READ_RATE_LIMIT). ` +
  `A client address whose tokens opened no feed ${DEFAULT_CONFIG.feedMissRate.limit} times in an hour (FEED_MISS_RATE_LIMIT) is answered 429 with Retry-After, whatever the token, until that hour ends.`;

function feedOperation(form: FeedForm): OperationDoc {
  const validators = { ETag: true, "Cache-Control": true } as const;
  const body =
    form === "json"
      ? { body: PersonalJsonFeedSchema, mediaType: "application/feed+json" }
      : { body: z.string().describe("an Atom 1.0 document (RFC 4287)"), mediaType: "application/atom+xml" };
  return {
    operationId: form === "json" ? "getForYouJsonFeed" : "getForYouAtomFeed",
    summary: `Your list as ${form === "json" ? "JSON Feed 1.1" : "Atom"}`,
    description:
      `The top ${FOR_YOU_FEED_ITEMS} (at most the tier's max_limit) of your list of the newest published day, in the ` +
      "order GET /v1/me/picks gives, each entry saying why it is there (`_for_you` in JSON Feed) without naming the " +
      "library or liked papers or the followed authors and phrases (GET /v1/me/picks does). The token in the " +
      "path is the only credential: give this URL to a feed reader, never the API key. The ETag follows the day and " +
      "the profile's version, so a poll of an unchanged feed is a 304. A token that is unknown, was replaced, or whose " +
      "key was revoked or rotated answers 404.",
    tags: ["readers"],
    rateLimit: feedRate,
    path: TokenPathSchema,
    headers: ConditionalHeadersSchema,
    responses: {
      200: { description: "The feed.", ...body, headers: validators },
      304: { description: "The copy named in If-None-Match is current.", headers: validators },
      404: { description: "No feed at this address.", body: HttpErrorSchema },
      429: "TooManyRequests",
      503: "StoreUnavailable",
    },
  };
}

/** The operations of this file, for the OpenAPI document. */
export const forYouPaths: readonly PathDoc[] = [
  {
    route: "/v1/me/feed-token",
    post: {
      operationId: "issueFeedToken",
      summary: "Issue your personal feed's token",
      description:
        "A new capability token for GET /v1/feeds/for-you/{token}.xml and .json, shown once; the previous token, " +
        "if any, answers 404 from now on. The token is not the API key and opens nothing but the feed; only its " +
        "hash is stored. Erasing the profile or revoking the key erases it; rotating the key ends it too (whoever " +
        "held the old key could have issued it), so issue a new one with the new key. GET /v1/me/profile says " +
        "when the token was issued, never the token.",
      tags: ["readers"],
      keyed: true,
      rateLimit: `Free: no quota spent; a profile write (${DEFAULT_CONFIG.profileWriteRate.limit} per minute per key, PROFILE_WRITE_RATE_LIMIT).`,
      responses: {
        201: { description: "The new token and the feeds' URLs.", body: FeedTokenIssuedSchema },
        401: "Unauthorized",
        429: "TooManyRequests",
        503: "StoreUnavailable",
      },
    },
  },
  { route: "/v1/feeds/for-you/:token.xml", get: feedOperation("atom") },
  { route: "/v1/feeds/for-you/:token.json", get: feedOperation("json") },
];

/** The active key behind a token; null for every token that opens nothing, after the same store reads. */
async function ownerOf(context: AppContext, token: string): Promise<KeyRecord | null> {
  const owner = await feedTokenOwner(context.store, token);
  const found = await context.keys.authenticateHash(owner?.key_hash ?? NO_KEY_HASH);
  return owner && found.ok && found.record.id === owner.key_id ? found.record : null;
}

export function registerForYouRoutes(app: H3, context: AppContext): void {
  const feeds = createForYouFeeds(context);

  route(app, "/v1/me/feed-token", {
    POST: async (event) => {
      const record = await authorize(event, context);
      if (record instanceof Response) return record;
      const rate = await limitByKey(context, context.config.profileWriteRate, record.id);
      if (!rate.allowed) return rateRefusal(rate, "profile writes", context.config.profileWriteRate);
      const at = new Date(context.now()).toISOString();
      const issued = await issueFeedToken(context.store, record, at);
      if (!issued) {
        return detail(503, "Another change to this profile is under way; try again in a moment.", {
          ...rate.headers,
          "retry-after": "1",
        });
      }
      if (issued === "revoked") return detail(401, authFailure("revoked"));
      const base = `${baseUrlOf(context, event.req)}/v1/feeds/for-you/${issued.token}`;
      return json(
        201,
        {
          token: issued.token,
          issued_at: issued.issued_at,
          atom_url: `${base}.xml`,
          json_url: `${base}.json`,
          replaced: issued.replaced,
        },
        rate.headers,
      );
    },
  });

  const serve = (form: FeedForm) => async (event: H3Event) => {
    const token = pathParam(event, "token");
    // A malformed token costs nothing; a well-formed one costs two store reads, so an address that keeps
    // asking for feeds that do not exist is stopped before it pays for them.
    if (!FEED_TOKEN_PATTERN.test(token)) return detail(404, NO_FEED);
    const { feedMissRate: misses, trustProxy } = context.config;
    const address = requestIp(event, trustProxy);
    const over = knownRefusal(context, address, misses.name, misses.limit, misses.windowSeconds);
    if (over) return rateRefusal(over, "reads of feeds that do not exist from this address", misses);
    const record = await ownerOf(context, token);
    if (!record) {
      const counted = await limitAddressCalls(
        context,
        address,
        misses.name,
        misses.limit,
        misses.windowSeconds,
      );
      if (!counted.allowed) {
        return rateRefusal(counted, "reads of feeds that do not exist from this address", misses);
      }
      return detail(404, NO_FEED);
    }
    noteKey(event.context, record);
    const rate = await limitByKey(context, context.config.feedReadRate, record.id);
    if (!rate.allowed) return rateRefusal(rate, "feed reads", context.config.feedReadRate);
    const answer = await feeds.answer(record, token, form, baseUrlOf(context, event.req));
    const headers = { ...FEED_HEADERS, ...rate.headers, etag: answer.etag };
    if (matchesIfNoneMatch(event.req.headers.get("if-none-match"), answer.etag)) {
      return new FastResponse(null, { status: 304, headers });
    }
    return new FastResponse(answer.body, {
      status: 200,
      headers: { ...headers, "content-type": FEED_TYPES[form] },
    });
  };
  route(app, "/v1/feeds/for-you/:token.xml", { GET: serve("atom") });
  route(app, "/v1/feeds/for-you/:token.json", { GET: serve("json") });
}

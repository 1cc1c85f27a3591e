import type { H3 } from "h3";
import {
  type KeyIssued,
  KeyIssuedSchema,
  type KeyUsage,
  KeyUsageSchema,
} from "../../pipeline/domain/api-answers.ts";
import { KeyIssueRequestSchema } from "../../pipeline/domain/key-request.ts";
import { TIERS } from "../../pipeline/domain/tiers.ts";
import { issueFreeKey } from "../access/free-key.ts";
import { authorize, quotaHeaders } from "../access/keyed.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail, json, jsonText } from "../http/answers.ts";
import { route } from "../http/route-table.ts";
import { payloadTooLarge } from "../openapi/common-responses.ts";
import type { PathDoc } from "../openapi/operation.ts";
import { perAddressText } from "../openapi/rate-limits.ts";
import { validateRequest } from "../validation/request.ts";

/**
 * The most of a key request that is read: 200 code points of fields, even written as 12-byte `\u`
 * surrogate escapes, come to 2,400 bytes, so every body the schema can accept fits.
 */
export const KEY_BODY_MAX_BYTES = 4 * 1024;

/** The operations of this file, for the OpenAPI document. */
export const keyPaths: readonly PathDoc[] = [
  {
    route: "/v1/keys",
    post: {
      operationId: "issueKey",
      summary: "Get a free API key",
      description:
        "Issues a free-tier key. The key is in this answer only: the server keeps just its hash, so a lost " +
        "key cannot be shown again.",
      tags: ["keys"],
      rateLimit: perAddressText(
        DEFAULT_CONFIG.keyIssueLimit,
        DEFAULT_CONFIG.keyIssueWindowSeconds,
        "KEY_ISSUE_LIMIT",
      ),
      body: KeyIssueRequestSchema,
      responses: {
        201: {
          description: "The new key.",
          body: KeyIssuedSchema,
          headers: { RateLimit: true, "RateLimit-Policy": true, "Cache-Control": true },
        },
        400: "BadRequest",
        413: payloadTooLarge(KEY_BODY_MAX_BYTES),
        422: "ValidationFailed",
        429: "TooManyRequests",
        503: "StoreUnavailable",
      },
    },
  },
  {
    route: "/v1/me",
    get: {
      operationId: "getMe",
      summary: "Your key and its usage",
      description: "The caller's key, its tier's limits and the current quota window.",
      tags: ["keys"],
      keyed: true,
      rateLimit: "Free: reading one's own usage spends no quota.",
      responses: {
        200: {
          description: "The key and its usage.",
          body: KeyUsageSchema,
          headers: { RateLimit: false, "RateLimit-Policy": false },
        },
        401: "Unauthorized",
        503: "StoreUnavailable",
      },
    },
  },
];

export function registerKeyRoutes(app: H3, context: AppContext): void {
  route(app, "/v1/keys", {
    POST: async (event) => {
      const request = await validateRequest(
        event.req,
        { body: KeyIssueRequestSchema },
        { url: event.url, maxBytes: KEY_BODY_MAX_BYTES },
      );
      if (!request.ok) return jsonText(request);
      const issued = await issueFreeKey(context, event, request.value.body);
      if (!issued.ok) {
        const limit = context.config.keyIssueLimit;
        const at = new Date(issued.resetsAt).toISOString();
        return detail(
          429,
          `This address already received ${limit === 1 ? "a key" : `${limit} keys`} in the last 24 hours; try again after ${at}.`,
          issued.headers,
        );
      }
      const { key, record } = issued;
      return json(
        201,
        {
          key,
          key_id: record.id,
          tier: record.tier,
          limits: TIERS[record.tier],
          created_at: record.created_at,
          note: "Store this key now: it is shown only this once. Send it in the X-API-Key header.",
        } satisfies KeyIssued,
        { ...issued.headers, "cache-control": "no-store" },
      );
    },
  });

  route(app, "/v1/me", {
    GET: async (event) => {
      const record = await authorize(event, context);
      if (record instanceof Response) return record;
      // Reading one's own usage spends nothing.
      const usage = await context.keys.usage(record);
      return json(
        200,
        {
          key_id: record.id,
          tier: record.tier,
          label: record.label,
          created_at: record.created_at,
          limits: usage.limits,
          usage: {
            used: usage.used,
            remaining: usage.remaining,
            window_start: usage.window_start,
            resets_at: usage.resets_at,
          },
        } satisfies KeyUsage,
        quotaHeaders(record, usage),
      );
    },
  });
}

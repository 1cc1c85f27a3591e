import type { H3 } from "h3";
import { VerifyRequestSchema, VerifyResultSchema } from "../../pipeline/domain/verify-request.ts";
import { limitByIp } from "../access/ip-limit.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail, json, jsonText } from "../http/answers.ts";
import { route } from "../http/route-table.ts";
import { payloadTooLarge } from "../openapi/common-responses.ts";
import type { PathDoc } from "../openapi/operation.ts";
import { perAddressText } from "../openapi/rate-limits.ts";
import { validateRequest } from "../validation/request.ts";
import { verifyMessage } from "../verify/verify-message.ts";

const HOUR = 3600;

/**
 * The most of a verification request that is read: the longest fields and a full red list (200 terms
 * of 200) come to about 51,000 code points, so any body the schema accepts fits in plain ASCII; a
 * 64 KiB cap keeps the parse of a malformed body cheap.
 */
export const VERIFY_BODY_MAX_BYTES = 64 * 1024;

/** The operations of this file, for the OpenAPI document. */
export const verifyPaths: readonly PathDoc[] = [
  {
    route: "/v1/verify",
    post: {
      operationId: "verifyMessage",
      summary: "Check a message before sending it",
      description:
        "Runs the pre-send checks (placeholders, secrets, personal data, links, send window, red list, " +
        "opt-out, ...) and, when a model is configured and `options.llm_check` is on, a semantic review. " +
        "The verdict is allow, warn or block; every finding points at its evidence by code-point offsets.",
      tags: ["verify"],
      rateLimit: perAddressText(DEFAULT_CONFIG.verifyLimit, HOUR, "VERIFY_RATE_LIMIT"),
      body: VerifyRequestSchema,
      responses: {
        200: {
          description: "The verdict and every check's result.",
          body: VerifyResultSchema,
          headers: { RateLimit: true, "RateLimit-Policy": true },
        },
        400: "BadRequest",
        413: payloadTooLarge(VERIFY_BODY_MAX_BYTES),
        422: "ValidationFailed",
        429: "TooManyRequests",
        503: "StoreUnavailable",
      },
    },
  },
];

/** POST /v1/verify: the free pre-send check, limited per client address. */
export function registerVerifyRoutes(app: H3, context: AppContext): void {
  route(app, "/v1/verify", {
    POST: async (event) => {
      const request = await validateRequest(
        event.req,
        { body: VerifyRequestSchema },
        { url: event.url, maxBytes: VERIFY_BODY_MAX_BYTES },
      );
      if (!request.ok) return jsonText(request);
      const limit = await limitByIp(context, event, "verify", context.config.verifyLimit, HOUR);
      if (!limit.allowed) {
        return detail(
          429,
          `Rate limit: ${context.config.verifyLimit} verifications per hour per client address; ` +
            `try again after ${new Date(limit.resetsAt).toISOString()}.`,
          limit.headers,
        );
      }
      const result = await verifyMessage(request.value.body, {
        now: new Date(context.now()),
        semantic: context.semantic,
        log: context.log,
      });
      return json(200, result, limit.headers);
    },
  });
}

import type { H3 } from "h3";
import {
  type VerifyRequest,
  VerifyRequestSchema,
  VerifyResultSchema,
} from "../../pipeline/domain/verify-request.ts";
import { limitAddressCalls } from "../access/ip-limit.ts";
import { requestIp } from "../access/request-ip.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { jsonText } from "../http/answers.ts";
import { route } from "../http/route-table.ts";
import { payloadTooLarge } from "../openapi/common-responses.ts";
import type { PathDoc } from "../openapi/operation.ts";
import { perAddressText } from "../openapi/rate-limits.ts";
import { detailBody, validationErrorBody } from "../validation/errors.ts";
import { type BodyResult, parseJsonBody } from "../validation/json-body.ts";
import { validateBody } from "../validation/request.ts";
import { verifyResultJson } from "../verify/result-json.ts";
import { verifyMessage } from "../verify/verify-message.ts";

const HOUR = 3600;

/**
 * The most of a verification request that is read: the longest fields and a full red list (200 terms
 * of 200) come to about 51,000 code points, so any body the schema accepts fits in plain ASCII; a
 * 64 KiB cap keeps the parse of a malformed body cheap.
 */
export const VERIFY_BODY_MAX_BYTES = 64 * 1024;

/** The route, one string for the router, the fast path (server/http/fast-routes.ts) and the metrics label. */
export const VERIFY_ROUTE = "/v1/verify";

/** The operations of this file, for the OpenAPI document. */
export const verifyPaths: readonly PathDoc[] = [
  {
    route: VERIFY_ROUTE,
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

/** An answer as status, JSON text and headers: the route and the fast path send it the same. */
export interface VerifyAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * `POST /v1/verify` once its body is read: validation (422), the client address's limit (429), then the
 * checks. The route and the fast path (../http/verify-fast-path.ts) both answer through it.
 *
 * Not async: the body is validated before anything waits, so no suspended frame holds it while the
 * limit waits for its turn's commit. An async frame keeps its parameters alive across an await, and the
 * body's `exact` keeps the whole decoded JSON text: every scavenge during that wait copied a 10 KB text
 * per request in flight.
 */
export function answerVerify(
  context: AppContext,
  body: BodyResult,
  clientAddress: string,
): Promise<VerifyAnswer> {
  if (!body.ok) return Promise.resolve(body);
  const request = validateBody(VerifyRequestSchema, body.value, body.exact);
  if (!request.ok) return Promise.resolve({ status: 422, body: validationErrorBody(request.issues) });
  return answerValidRequest(context, request.value, clientAddress);
}

/** A validated request: the client address's limit (429), then the checks. */
async function answerValidRequest(
  context: AppContext,
  request: VerifyRequest,
  clientAddress: string,
): Promise<VerifyAnswer> {
  const limit = await limitAddressCalls(context, clientAddress, "verify", context.config.verifyLimit, HOUR);
  if (!limit.allowed) {
    return {
      status: 429,
      body: detailBody(
        `Rate limit: ${context.config.verifyLimit} verifications per hour per client address; ` +
          `try again after ${new Date(limit.resetsAt).toISOString()}.`,
      ),
      headers: limit.headers,
    };
  }
  const result = await verifyMessage(request, {
    now: new Date(context.now()),
    semantic: context.semantic,
    log: context.log,
  });
  context.metrics.countVerdict(result.verdict);
  return { status: 200, body: verifyResultJson(result), headers: limit.headers };
}

/** POST /v1/verify: the free pre-send check, limited per client address. */
export function registerVerifyRoutes(app: H3, context: AppContext): void {
  route(app, VERIFY_ROUTE, {
    POST: async (event) => {
      const body = await parseJsonBody(event.req, { maxBytes: VERIFY_BODY_MAX_BYTES });
      const answer = await answerVerify(context, body, requestIp(event, context.config.trustProxy));
      return jsonText(answer, answer.headers);
    },
  });
}

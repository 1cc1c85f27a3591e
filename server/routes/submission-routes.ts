import type { H3 } from "h3";
import { z } from "zod";
import {
  type Leaderboard,
  LeaderboardSchema,
  type SubmissionAccepted,
  SubmissionAcceptedSchema,
} from "../../pipeline/domain/api-answers.ts";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import {
  LeaderboardQuerySchema,
  SubmissionViewSchema,
  SubstrateSubmissionSchema,
  submissionView,
} from "../../pipeline/domain/submission.ts";
import { limitByIp } from "../access/ip-limit.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail, json, jsonText } from "../http/answers.ts";
import { pathParam, route } from "../http/route-table.ts";
import { payloadTooLarge } from "../openapi/common-responses.ts";
import type { PathDoc } from "../openapi/operation.ts";
import { perAddressText } from "../openapi/rate-limits.ts";
import { validationErrorBody } from "../validation/errors.ts";
import { validatePath, validateQuery, validateRequest } from "../validation/request.ts";

const SubmissionPathSchema = z.object({
  submission_id: z.int().describe("the id POST /v1/score/submit answered"),
});

const SUBMIT_WINDOW_SECONDS = 86_400;

/**
 * The most of a submission that is read: its fields hold at most 2,680 code points, 10,720 bytes of
 * UTF-8 even if every one took four, so any body the schema accepts fits unless written with `\u`
 * escapes for most of its characters.
 */
export const SUBMIT_BODY_MAX_BYTES = 16 * 1024;

/** The operations of this file, for the OpenAPI document. */
export const submissionPaths: readonly PathDoc[] = [
  {
    route: "/v1/score/submit",
    post: {
      operationId: "submitRuntime",
      summary: "Put an agent runtime forward for scoring",
      description:
        "Queues a runtime for scoring on the rubric. A worker fetches the page at `url` once (public " +
        "addresses only) and scores its text with the description; poll the submission for the result.",
      tags: ["submissions"],
      rateLimit: perAddressText(DEFAULT_CONFIG.submitLimit, SUBMIT_WINDOW_SECONDS, "SUBMIT_RATE_LIMIT"),
      body: SubstrateSubmissionSchema,
      responses: {
        202: {
          description: "Accepted and queued.",
          body: SubmissionAcceptedSchema,
          headers: { Location: true, RateLimit: true, "RateLimit-Policy": true, "Cache-Control": true },
        },
        400: "BadRequest",
        413: payloadTooLarge(SUBMIT_BODY_MAX_BYTES),
        422: "ValidationFailed",
        429: "TooManyRequests",
        503: "StoreUnavailable",
      },
    },
  },
  {
    route: "/v1/score/submission/:submission_id",
    get: {
      operationId: "getSubmission",
      summary: "A submission and its scores",
      description:
        "Where a submission stands (queued, fetching, scoring, scored or failed), every status change, " +
        "and once scored its scores with their evidence. The contact email is never shown.",
      tags: ["submissions"],
      path: SubmissionPathSchema,
      responses: {
        200: {
          description: "The submission.",
          body: SubmissionViewSchema,
          headers: { "Cache-Control": true },
        },
        404: { description: "No submission has this id.", body: HttpErrorSchema },
        422: "ValidationFailed",
        503: "StoreUnavailable",
      },
    },
  },
  {
    route: "/v1/score/leaderboard",
    get: {
      operationId: "getLeaderboard",
      summary: "The leaderboard",
      description:
        "Scored submissions, best first: total, then REG FIT, then the earlier scoring. Ties are broken, " +
        "never shared.",
      tags: ["submissions"],
      query: LeaderboardQuerySchema,
      responses: {
        200: {
          description: "The best entries.",
          body: LeaderboardSchema,
          headers: { "Cache-Control": true },
        },
        422: "ValidationFailed",
        503: "StoreUnavailable",
      },
    },
  },
];

const pollPath = (id: number) => `/v1/score/submission/${id}`;

/** Agent-runtime submissions: accepted here, scored by the worker, read back one by one or ranked. */
export function registerSubmissionRoutes(app: H3, context: AppContext): void {
  route(app, "/v1/score/submit", {
    POST: async (event) => {
      const request = await validateRequest(
        event.req,
        { body: SubstrateSubmissionSchema },
        { url: event.url, maxBytes: SUBMIT_BODY_MAX_BYTES },
      );
      if (!request.ok) return jsonText(request);
      const limit = context.config.submitLimit;
      const ipLimit = await limitByIp(context, event, "submit", limit, SUBMIT_WINDOW_SECONDS);
      if (!ipLimit.allowed) {
        const at = new Date(ipLimit.resetsAt).toISOString();
        const made = limit === 1 ? "a submission" : `${limit} submissions`;
        const message = `This address already made ${made} in the last 24 hours; try again after ${at}.`;
        return detail(429, message, ipLimit.headers);
      }
      const record = await context.submissions.submit(request.value.body);
      return json(
        202,
        {
          submission_id: record.id,
          status: record.status,
          submitted_at: record.submitted_at,
          poll_url: pollPath(record.id),
          note: "Scoring runs in the background, usually within seconds; poll the url for the result.",
        } satisfies SubmissionAccepted,
        { ...ipLimit.headers, location: pollPath(record.id), "cache-control": "no-store" },
      );
    },
  });

  route(app, "/v1/score/submission/:submission_id", {
    GET: async (event) => {
      const raw = pathParam(event, "submission_id");
      // pydantic takes integers of any size where zod stops at 2^53; no id is that large, so it is unknown.
      if (/^\s*[+-]?\d+\s*$/.test(raw) && !Number.isSafeInteger(Number(raw))) {
        return detail(404, `No submission with id ${BigInt(raw.trim().replace(/^\+/, ""))}`);
      }
      const path = validatePath(SubmissionPathSchema, { submission_id: raw });
      if (!path.ok) return jsonText({ status: 422, body: validationErrorBody(path.issues) });
      const id = path.value.submission_id;
      const record = id >= 1 ? await context.submissions.find(id) : null;
      if (!record) return detail(404, `No submission with id ${id}`);
      return json(200, submissionView(record), { "cache-control": "no-store" });
    },
  });

  route(app, "/v1/score/leaderboard", {
    GET: async (event) => {
      const query = validateQuery(LeaderboardQuerySchema, event.url.searchParams);
      if (!query.ok) return jsonText({ status: 422, body: validationErrorBody(query.issues) });
      const { limit } = query.value;
      const board = await context.submissions.leaderboard(limit);
      return json(200, { limit, total: board.total, entries: board.entries } satisfies Leaderboard, {
        "cache-control": "no-cache",
      });
    },
  });
}

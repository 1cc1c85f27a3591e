import type { H3, H3Event } from "h3";
import { z } from "zod";
import { PapersListSchema } from "../../pipeline/domain/api-answers.ts";
import { ARXIV_ID_PATTERN, baseArxivId } from "../../pipeline/domain/arxiv-id.ts";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import {
  LOWERED_FILTERS,
  MAX_DAYS,
  PapersQuerySchema,
  withinHistory,
} from "../../pipeline/domain/papers-query.ts";
import { PickSchema } from "../../pipeline/domain/pick.ts";
import { TIERS } from "../../pipeline/domain/tiers.ts";
import type { KeyRecord } from "../access/key-service.ts";
import { authorize, authorizeKey, quotaHeaders, spendOrRefuse } from "../access/keyed.ts";
import type { AppContext } from "../context.ts";
import { detail, jsonText } from "../http/answers.ts";
import { pathParam, route } from "../http/route-table.ts";
import { noteKey } from "../metrics/request-notes.ts";
import type { PathDoc } from "../openapi/operation.ts";
import { quotaText } from "../openapi/rate-limits.ts";
import { papersIndex } from "../snapshots/papers-index.ts";
import { DayUnavailableError } from "../snapshots/snapshot-cache.ts";
import { validationErrorBody } from "../validation/errors.ts";
import { validatePath, validateQuery } from "../validation/request.ts";

export const PaperPathSchema = z.object({
  arxiv_id: z
    .string()
    .regex(new RegExp(ARXIV_ID_PATTERN))
    .describe("new-style 2401.12345 (vN allowed) or old-style cs/0112017"),
});

const quotaHeaderDocs = { RateLimit: false, "RateLimit-Policy": false } as const;

/** The list's route, one string for the router, the fast path (server/http/fast-routes.ts) and the metrics label. */
export const PAPERS_ROUTE = "/v1/papers";

/** The operations of this file, for the OpenAPI document. */
export const papersPaths: readonly PathDoc[] = [
  {
    route: PAPERS_ROUTE,
    get: {
      operationId: "listPapers",
      summary: "Query the picks",
      description:
        "The picks of the last `days` calendar days (counted back from the latest published day), newest " +
        "day first, then by rank, filtered by score. `days` and `limit` take any integer from 1 up: beyond " +
        "the tier's history or page size, and beyond the maxima below, which bound every tier (a full " +
        `history reaches ${MAX_DAYS} days), they are lowered, not refused, and \`applied.capped\` says which.`,
      tags: ["papers"],
      keyed: true,
      rateLimit: quotaText(),
      query: PapersQuerySchema,
      responses: {
        200: { description: "One page of matching picks.", body: PapersListSchema, headers: quotaHeaderDocs },
        401: "Unauthorized",
        422: "ValidationFailed",
        429: "TooManyRequests",
        503: "StoreUnavailable",
      },
    },
  },
  {
    route: "/v1/papers/:arxiv_id",
    // An old-style id's slash may also come unencoded: /v1/papers/cs/0112017.
    aliases: ["/v1/papers/:archive/:number"],
    get: {
      operationId: "getPaper",
      summary: "One pick in full",
      description:
        "The newest pick of a paper, with its scores, their evidence and its citation data. A version " +
        "suffix (v2) is ignored. An old-style id's slash may be sent as %2F or as written.",
      tags: ["papers"],
      keyed: true,
      rateLimit: quotaText(),
      path: PaperPathSchema,
      responses: {
        200: { description: "The pick.", body: PickSchema, headers: quotaHeaderDocs },
        401: "Unauthorized",
        403: {
          description: "The pick is older than the tier's history reaches. Spends nothing.",
          body: HttpErrorSchema,
          headers: quotaHeaderDocs,
        },
        404: { description: "No pick has this arXiv id.", body: HttpErrorSchema },
        422: "ValidationFailed",
        429: "TooManyRequests",
        503: {
          description: "The store is unreachable, or the pick's published day cannot be read right now.",
          body: HttpErrorSchema,
        },
      },
    },
  },
];

/** A 200 of GET /v1/papers: its bytes and the quota's headers. */
export interface PapersListAnswer {
  body: Buffer;
  headers: Record<string, string>;
  /** The key that asked, for the request log. */
  key: KeyRecord;
}

/**
 * GET /v1/papers from the key header's value and the query string: the route and the keyed fast path
 * (server/http/keyed-fast-path.ts) both answer through it. Every refusal is a Response; a 200 is its
 * parts, which the fast path writes straight to the socket.
 */
export async function answerPapersList(
  context: AppContext,
  key: string | null,
  params: URLSearchParams,
): Promise<Response | PapersListAnswer> {
  const record = await authorizeKey(context, key, params);
  if (record instanceof Response) return record;
  const query = validateQuery(PapersQuerySchema, params, { lowered: LOWERED_FILTERS });
  if (!query.ok) return jsonText({ status: 422, body: validationErrorBody(query.issues) });
  const spent = await spendOrRefuse(context, record);
  if (spent instanceof Response) return spent;
  await context.snapshots.ready();
  // The quota is spent and the RateLimit headers are the key's whatever answer is kept.
  return { body: context.papers.list(record.tier, query.value), headers: spent.headers, key: record };
}

/** The keyed queries over the published picks, answered from memory. */
export function registerPapersRoutes(app: H3, context: AppContext): void {
  route(app, PAPERS_ROUTE, {
    GET: async (event) => {
      const answer = await answerPapersList(
        context,
        event.req.headers.get("x-api-key"),
        event.url.searchParams,
      );
      if (answer instanceof Response) return answer;
      noteKey(event.context, answer.key);
      return jsonText({ status: 200, body: answer.body }, answer.headers);
    },
  });

  const onePaper = async (event: H3Event, id: string) => {
    const record = await authorize(event, context);
    if (record instanceof Response) return record;
    const path = validatePath(PaperPathSchema, { arxiv_id: id });
    if (!path.ok) return jsonText({ status: 422, body: validationErrorBody(path.issues) });
    await context.snapshots.ready();
    const index = papersIndex(context.snapshots.days());
    const found = index.byId.get(baseArxivId(path.value.arxiv_id));
    const latest = context.snapshots.latestDate();
    if (!found || latest === null) return detail(404, `No pick with arXiv id ${path.value.arxiv_id}`);
    const history = TIERS[record.tier].history_days;
    if (!withinHistory(found.date, latest, history)) {
      const usage = await context.keys.usage(record);
      return detail(
        403,
        `${path.value.arxiv_id} was picked on ${found.date}, outside the ${history} days of history of the ${record.tier} tier.`,
        quotaHeaders(record, usage),
      );
    }
    const spent = await spendOrRefuse(context, record);
    if (spent instanceof Response) return spent;
    try {
      const [pick] = await context.snapshots.fullPicks([found]);
      return jsonText({ status: 200, body: JSON.stringify(pick) }, spent.headers);
    } catch (error) {
      if (!(error instanceof DayUnavailableError)) throw error;
      return detail(503, `${path.value.arxiv_id} cannot be read right now: ${error.message}`, spent.headers);
    }
  };

  route(app, "/v1/papers/:arxiv_id", { GET: (event) => onePaper(event, pathParam(event, "arxiv_id")) });
  // Old-style ids contain a slash; accept it unencoded too (`/v1/papers/cs/0112017`).
  route(app, "/v1/papers/:archive/:number", {
    GET: (event) => onePaper(event, `${pathParam(event, "archive")}/${pathParam(event, "number")}`),
  });
}

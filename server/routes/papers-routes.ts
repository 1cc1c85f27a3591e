import type { H3, H3Event } from "h3";
import { z } from "zod";
import { ARXIV_ID_PATTERN, baseArxivId } from "../../pipeline/domain/arxiv-id.ts";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import { LOWERED_FILTERS, MAX_DAYS, withinHistory } from "../../pipeline/domain/papers-query.ts";
import {
  PaperAnswerSchema,
  PaperRequestSchema,
  PapersAnswerSchema,
  PapersRequestSchema,
  screenedPaperAnswer,
} from "../../pipeline/domain/screened-answers.ts";
import { TIERS } from "../../pipeline/domain/tiers.ts";
import type { KeyRecord } from "../access/key-service.ts";
import { authorize, authorizeKey, quotaHeaders, spendOrRefuse } from "../access/keyed.ts";
import type { AppContext } from "../context.ts";
import { detail, jsonText } from "../http/answers.ts";
import { pathParam, route } from "../http/route-table.ts";
import { noteKey } from "../metrics/request-notes.ts";
import type { PathDoc } from "../openapi/operation.ts";
import { quotaText } from "../openapi/rate-limits.ts";
import { findScreened } from "../snapshots/screened-papers.ts";
import { DayUnavailableError } from "../snapshots/snapshot-cache.ts";
import { validationErrorBody } from "../validation/errors.ts";
import { validatePath, validateQuery } from "../validation/request.ts";

const PaperPathSchema = z.object({
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
        `history reaches ${MAX_DAYS} days), they are lowered, not refused, and \`applied.capped\` says which. ` +
        "With `scope=screened`, every paper the days screened, picked or not, in the model's order (`rank`), " +
        "with the same filters, history and page size, each item marked `picked` with its `reason`; days " +
        "published before screened files existed add none.",
      tags: ["papers"],
      keyed: true,
      rateLimit: quotaText(),
      query: PapersRequestSchema,
      responses: {
        200: {
          description: "One page of matching picks, or with `scope=screened` of matching screened papers.",
          body: PapersAnswerSchema,
          headers: quotaHeaderDocs,
        },
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
        "suffix (v2) is ignored. An old-style id's slash may be sent as %2F or as written. With " +
        "`scope=screened`, any screened paper, picked or not, as its day's screened file holds it (rubric " +
        "levels, likelihoods, `picked` and `reason`), looked for in the days from its id's month to three " +
        "months after.",
      tags: ["papers"],
      keyed: true,
      rateLimit: quotaText(),
      path: PaperPathSchema,
      query: PaperRequestSchema,
      responses: {
        200: {
          description: "The pick, or with `scope=screened` the screened paper.",
          body: PaperAnswerSchema,
          headers: quotaHeaderDocs,
        },
        401: "Unauthorized",
        403: {
          description: "The pick is older than the tier's history reaches. Spends nothing.",
          body: HttpErrorSchema,
          headers: quotaHeaderDocs,
        },
        404: {
          description: "No pick (or with `scope=screened`, no screened paper) has this arXiv id.",
          body: HttpErrorSchema,
        },
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
  const query = validateQuery(PapersRequestSchema, params, { lowered: LOWERED_FILTERS });
  if (!query.ok) return jsonText({ status: 422, body: validationErrorBody(query.issues) });
  const spent = await spendOrRefuse(context, record);
  if (spent instanceof Response) return spent;
  await context.snapshots.ready();
  // The scope is kept apart from the filters: a picks answer is the same bytes with or without
  // `scope=picks`, and as before the parameter existed.
  const { scope, ...filters } = query.value;
  if (scope === "screened") {
    try {
      const body = await context.papers.screened(record.tier, filters);
      return { body, headers: spent.headers, key: record };
    } catch (error) {
      if (!(error instanceof DayUnavailableError)) throw error;
      return detail(503, `The screened papers cannot be read right now: ${error.message}`, spent.headers);
    }
  }
  // The quota is spent and the RateLimit headers are the key's whatever answer is kept.
  return { body: context.papers.list(record.tier, filters), headers: spent.headers, key: record };
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

  route(app, "/v1/papers/:arxiv_id", {
    GET: (event) => onePaper(context, event, pathParam(event, "arxiv_id")),
  });
  // Old-style ids contain a slash; accept it unencoded too (`/v1/papers/cs/0112017`).
  route(app, "/v1/papers/:archive/:number", {
    GET: (event) => onePaper(context, event, `${pathParam(event, "archive")}/${pathParam(event, "number")}`),
  });
}

/** The 403 of a paper the key's tier may not see: `what` on `date` is older than its history. */
async function outsideHistory(
  context: AppContext,
  record: KeyRecord,
  what: string,
  date: string,
): Promise<Response | null> {
  const latest = context.snapshots.latestDate() as string;
  const history = TIERS[record.tier].history_days;
  if (withinHistory(date, latest, history)) return null;
  const usage = await context.keys.usage(record);
  return detail(
    403,
    `${what} on ${date}, outside the ${history} days of history of the ${record.tier} tier.`,
    quotaHeaders(record, usage),
  );
}

/** GET /v1/papers/{arxiv_id}: one pick, or with `scope=screened` one screened paper. */
async function onePaper(context: AppContext, event: H3Event, id: string): Promise<Response> {
  const record = await authorize(event, context);
  if (record instanceof Response) return record;
  const path = validatePath(PaperPathSchema, { arxiv_id: id });
  // Only a query that names a scope is read: a request without one is answered as before it existed.
  const scoped = event.url.searchParams.has("scope")
    ? validateQuery(PaperRequestSchema, event.url.searchParams)
    : undefined;
  if (!path.ok || scoped?.ok === false) {
    const issues = [...(path.ok ? [] : path.issues), ...(scoped?.ok === false ? scoped.issues : [])];
    return jsonText({ status: 422, body: validationErrorBody(issues) });
  }
  await context.snapshots.ready();
  if (scoped?.value.scope === "screened") return screenedPaper(context, record, path.value.arxiv_id);
  const found = context.papers.index().byId.get(baseArxivId(path.value.arxiv_id));
  if (!found || context.snapshots.latestDate() === null) {
    return detail(404, `No pick with arXiv id ${path.value.arxiv_id}`);
  }
  const refused = await outsideHistory(context, record, `${path.value.arxiv_id} was picked`, found.date);
  if (refused) return refused;
  const spent = await spendOrRefuse(context, record);
  if (spent instanceof Response) return spent;
  try {
    const [pick] = await context.snapshots.fullPicks([found]);
    return jsonText({ status: 200, body: JSON.stringify(pick) }, spent.headers);
  } catch (error) {
    if (!(error instanceof DayUnavailableError)) throw error;
    return detail(503, `${path.value.arxiv_id} cannot be read right now: ${error.message}`, spent.headers);
  }
}

async function screenedPaper(context: AppContext, record: KeyRecord, id: string): Promise<Response> {
  const found = await findScreened(context.snapshots, context.snapshots.days(), baseArxivId(id)).catch(
    (error: unknown) => {
      if (error instanceof DayUnavailableError) return error;
      throw error;
    },
  );
  if (found instanceof DayUnavailableError) {
    return detail(503, `${id} cannot be looked up right now: ${found.message}`);
  }
  if (!found || context.snapshots.latestDate() === null) {
    return detail(404, `No screened paper with arXiv id ${id}`);
  }
  const refused = await outsideHistory(context, record, `${id} was screened`, found.day.date);
  if (refused) return refused;
  const spent = await spendOrRefuse(context, record);
  if (spent instanceof Response) return spent;
  const body = JSON.stringify(screenedPaperAnswer(found.day, found.paper));
  return jsonText({ status: 200, body }, spent.headers);
}

import type { H3, H3Event } from "h3";
import { z } from "zod";
import { PapersListSchema } from "../../pipeline/domain/api-answers.ts";
import { ARXIV_ID_PATTERN, baseArxivId } from "../../pipeline/domain/arxiv-id.ts";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import {
  LOWERED_FILTERS,
  MAX_DAYS,
  type PapersQuery,
  PapersQuerySchema,
  queryPapers,
  withinHistory,
} from "../../pipeline/domain/papers-query.ts";
import { PickSchema } from "../../pipeline/domain/pick.ts";
import { TIERS, type TierName } from "../../pipeline/domain/tiers.ts";
import type { KeyRecord } from "../access/key-service.ts";
import { authorize, authorizeKey, quotaHeaders, spendOrRefuse } from "../access/keyed.ts";
import { type BoundedCache, createBoundedCache } from "../bounded-cache.ts";
import type { AppContext } from "../context.ts";
import { detail, jsonText } from "../http/answers.ts";
import { pathParam, route } from "../http/route-table.ts";
import { noteKey } from "../metrics/request-notes.ts";
import type { PathDoc } from "../openapi/operation.ts";
import { quotaText } from "../openapi/rate-limits.ts";
import { type PapersIndex, papersIndex } from "../snapshots/papers-index.ts";
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

/** The operations of this file, for the OpenAPI document. */
export const papersPaths: readonly PathDoc[] = [
  {
    route: "/v1/papers",
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

// Repeated queries are answered from the bytes of the first: a full ten-year history takes tens of
// milliseconds to filter and join, and then nothing. Per snapshot generation (a reload starts an
// empty cache), and bounded in bytes: a few full-history answers, or thousands of small ones.
const ANSWER_CACHE_BYTES = 32 * 1024 * 1024;
const answerCaches = new WeakMap<PapersIndex, BoundedCache<string, Buffer>>();

function answersOf(index: PapersIndex): BoundedCache<string, Buffer> {
  let answers = answerCaches.get(index);
  if (!answers) {
    answers = createBoundedCache<string, Buffer>(ANSWER_CACHE_BYTES, (body) => body.byteLength);
    answerCaches.set(index, answers);
  }
  return answers;
}

// Each list item's JSON, made the first time an answer holds it and kept as long as the index holds
// the item (so bounded by the index, and gone with its generation). A new query over the full history
// (5,000 items, 2.5 MB) spent 20-28 ms in JSON.stringify; from kept items it is a concatenation.
const itemBytes = new WeakMap<object, Buffer>();
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]}");

/** The most items one answer holds (the enterprise tier's `limit`): the newest are made at start. */
const NEWEST_ITEMS = 5000;
/** Items made a turn of the event loop at start: about a millisecond, so requests keep their turn. */
const ITEMS_A_TURN = 250;

/**
 * Makes the JSON of the newest NEWEST_ITEMS held items once the history is loaded, a slice a turn:
 * the first full-history query after a start then concatenates (33 against 78 ms end to end over
 * ten years), for about 2.5 MB held from the start rather than from that query.
 */
async function makeNewestItems(snapshots: AppContext["snapshots"]): Promise<void> {
  await snapshots.ready();
  const items: object[] = [];
  for (const day of snapshots.days()) {
    for (const pick of day.picks) if (items.length < NEWEST_ITEMS) items.push(pick);
    if (items.length >= NEWEST_ITEMS) break;
  }
  for (let at = 0; at < items.length; at += ITEMS_A_TURN) {
    await new Promise((resolve) => setImmediate(resolve));
    for (const item of items.slice(at, at + ITEMS_A_TURN)) encodedItem(item);
  }
}

function encodedItem(item: object): Buffer {
  let bytes = itemBytes.get(item);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(item));
    itemBytes.set(item, bytes);
  }
  return bytes;
}

/**
 * The bytes of a list answer: kept as bytes, so a repeated answer is not encoded again. The same
 * bytes as JSON.stringify of `{tier, applied, total, returned, papers}`, the items from their kept JSON.
 */
function listAnswer(index: PapersIndex, tier: TierName, query: PapersQuery): Buffer {
  const limits = TIERS[tier];
  const page = queryPapers(index.days, query, {
    historyDays: limits.history_days,
    maxLimit: limits.max_limit,
  });
  const head = JSON.stringify({
    tier,
    applied: page.applied,
    total: page.total,
    returned: page.picks.length,
  });
  const parts: Buffer[] = [Buffer.from(`${head.slice(0, -1)},"papers":[`)];
  page.picks.forEach((item, at) => {
    if (at > 0) parts.push(COMMA);
    parts.push(encodedItem(item));
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** A 200 of GET /v1/papers: its bytes and the quota's headers. */
export interface PapersListAnswer {
  body: Buffer;
  headers: Record<string, string>;
  /** The key that asked, for the request log. */
  key: KeyRecord;
}

/** A query's validation: the valid query and its JSON (the answer's key), or the 422's body. */
type CheckedQuery = { ok: true; value: PapersQuery; json: string } | { ok: false; body: string };

/** Remembered validations, by the query's text; texts longer than this are validated every time. */
const REMEMBERED_QUERIES = 1024;
const LONGEST_REMEMBERED_QUERY = 512;
const checkedQueries = createBoundedCache<string, CheckedQuery>(REMEMBERED_QUERIES);

/**
 * The query validated, remembered by its text (`search`, without the "?" that starts a query):
 * clients repeat a few queries, and validating one was 1-1.5 µs of a keyed read. A text that itself
 * starts with "?" is not remembered: `new URLSearchParams` drops that character and a URL's
 * `searchParams` keeps it, so the two callers read such a text differently.
 */
function checkedQuery(params: URLSearchParams, search: string): CheckedQuery {
  const remembered = search.length <= LONGEST_REMEMBERED_QUERY && !search.startsWith("?");
  const known = remembered ? checkedQueries.get(search) : undefined;
  if (known !== undefined) return known;
  const query = validateQuery(PapersQuerySchema, params, { lowered: LOWERED_FILTERS });
  const checked: CheckedQuery = query.ok
    ? { ok: true, value: query.value, json: JSON.stringify(query.value) }
    : { ok: false, body: validationErrorBody(query.issues) };
  return remembered ? checkedQueries.set(search, checked) : checked;
}

/**
 * GET /v1/papers from the key header's value and the query string: the route and the keyed fast path
 * (server/http/keyed-fast-path.ts) both answer through it. Every refusal is a Response; a 200 is its
 * parts, which the fast path writes straight to the socket. `search` is the query's text without its
 * "?", which `params` were read from.
 */
export async function answerPapersList(
  context: AppContext,
  key: string | null,
  params: URLSearchParams,
  search: string,
): Promise<Response | PapersListAnswer> {
  const record = await authorizeKey(context, key, params);
  if (record instanceof Response) return record;
  const query = checkedQuery(params, search);
  if (!query.ok) return jsonText({ status: 422, body: query.body });
  const spent = await spendOrRefuse(context, record);
  if (spent instanceof Response) return spent;
  await context.snapshots.ready();
  const index = papersIndex(context.snapshots.days());
  const answers = answersOf(index);
  // The answer depends on the tier (its caps and its name in the body) and the query, nothing
  // else; the quota is spent and the RateLimit headers are the key's whatever the cache holds.
  const cacheKey = `${record.tier}|${query.json}`;
  const body = answers.get(cacheKey) ?? answers.set(cacheKey, listAnswer(index, record.tier, query.value));
  return { body, headers: spent.headers, key: record };
}

/** The keyed queries over the published picks, answered from memory. */
export function registerPapersRoutes(app: H3, context: AppContext): void {
  makeNewestItems(context.snapshots).catch((error) =>
    context.log(`papers: the newest items were not made at start: ${(error as Error)?.message ?? error}`),
  );
  route(app, "/v1/papers", {
    GET: async (event) => {
      const answer = await answerPapersList(
        context,
        event.req.headers.get("x-api-key"),
        event.url.searchParams,
        event.url.search.slice(1),
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

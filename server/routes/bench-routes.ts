import type { H3, H3Event } from "h3";
import { z } from "zod";
import { FIRM_SLUG_PATTERN } from "../../pipeline/domain/bench-firm.ts";
import { type BenchNote, BenchNoteListSchema, BenchNoteSchema } from "../../pipeline/domain/bench-note.ts";
import { noteHtml, noteMarkdown } from "../../pipeline/domain/bench-note-render.ts";
import {
  FIRM_RUBRIC_PAGE,
  FIRM_RUBRIC_VERSIONS_KEPT,
  FirmRubricHistorySchema,
  FirmRubricRequestSchema,
  FirmRubricSchema,
  resolveFirmRubric,
} from "../../pipeline/domain/bench-rubric.ts";
import { FirmDaySchema } from "../../pipeline/domain/bench-scoring.ts";
import {
  CitationChangeSchema,
  citationChanges,
  TrackingDaySchema,
} from "../../pipeline/domain/bench-tracking.ts";
import {
  canonicalWatchlist,
  type EntryProblem,
  WatchlistRequestSchema,
  WatchlistSchema,
} from "../../pipeline/domain/bench-watchlist.ts";
import { ISO_WEEK_PATTERN, weekDays } from "../../pipeline/domain/bench-week.ts";
import { addDays, dayOf } from "../../pipeline/domain/calendar.ts";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import { FIRM_TIERS } from "../../pipeline/domain/tiers.ts";
import { limitByKey, rateRefusal } from "../access/key-limit.ts";
import { authorize, spendOrRefuse } from "../access/keyed.ts";
import { composeNote } from "../bench/weekly-note.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail, json, jsonText } from "../http/answers.ts";
import { pathParam, route } from "../http/route-table.ts";
import { payloadTooLarge } from "../openapi/common-responses.ts";
import type { OperationDoc, PathDoc } from "../openapi/operation.ts";
import { perKeyText } from "../openapi/rate-limits.ts";
import { validationErrorBody, valueError } from "../validation/errors.ts";
import { validatePath, validateQuery, validateRequest } from "../validation/request.ts";

// Every answer here is one firm's: the firm comes from the key, never from the request, so a key can
// only ever name its own firm's data. A key of another tier gets 403 on every path.

/** 500 ids of up to 300 characters, written as \u escapes, stay under this. */
const BENCH_BODY_MAX_BYTES = 512 * 1024;

const BenchPicksQuerySchema = z.object({
  days: z.int().min(1).max(366).default(7).describe("published days counted back from the latest one"),
});
const BenchTrackingQuerySchema = z.object({
  days: z.int().min(1).max(366).default(30).describe("days counted back from the latest published day"),
});
const BenchRubricQuerySchema = z.object({
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,8}$/)
    .optional()
    .describe("next_cursor of the previous page: versions older than it"),
});
const BenchWeekPathSchema = z.object({
  week: z.string().regex(new RegExp(ISO_WEEK_PATTERN)).describe("ISO week, e.g. 2026-W47"),
});

const BenchPicksSchema = z.object({
  firm: z.string().regex(new RegExp(FIRM_SLUG_PATTERN)),
  from: z.string(),
  to: z.string(),
  days: z.array(FirmDaySchema).describe("the firm's view of each published day, newest first"),
});
const BenchTrackingSchema = z.object({
  firm: z.string(),
  from: z.string(),
  to: z.string(),
  changes: z.array(CitationChangeSchema).describe("each watched paper's change over the period"),
  days: z.array(TrackingDaySchema).describe("the figures recorded on each published day, newest first"),
});

const keyedResponses = {
  401: "Unauthorized",
  403: { description: "The key is not a bench key of a firm.", body: HttpErrorSchema },
  503: "StoreUnavailable",
} as const;

const op = (doc: Omit<OperationDoc, "tags" | "keyed">): OperationDoc => ({
  ...doc,
  tags: ["bench"],
  keyed: true,
});

/** The operations of this file, for the OpenAPI document. */
export const benchPaths: readonly PathDoc[] = [
  {
    route: "/v1/bench/watchlist",
    get: op({
      operationId: "getBenchWatchlist",
      summary: "The firm's watchlist",
      description: "The papers, authors and terms the firm watches (empty lists before the first PUT).",
      responses: { 200: { description: "The watchlist.", body: WatchlistSchema }, ...keyedResponses },
    }),
    put: op({
      operationId: "putBenchWatchlist",
      summary: "Replace the firm's watchlist",
      description:
        "At most 500 papers, 100 authors and 100 terms. Ids in any form `labs_paper` takes are stored " +
        "canonical (versionless); repeats are dropped. A refused body leaves the stored watchlist as it was.",
      body: WatchlistRequestSchema,
      responses: {
        200: { description: "What was stored.", body: WatchlistSchema },
        ...keyedResponses,
        413: payloadTooLarge(BENCH_BODY_MAX_BYTES),
        422: "ValidationFailed",
      },
    }),
  },
  {
    route: "/v1/bench/rubric",
    get: op({
      operationId: "getBenchRubric",
      summary: "The firm's rubric and its versions",
      description:
        "The current version (null before the first PUT: the public weights apply) and a page of " +
        `${FIRM_RUBRIC_PAGE} kept versions, newest first; \`next_cursor\` continues with older ones. A firm ` +
        `keeps its newest ${FIRM_RUBRIC_VERSIONS_KEPT} versions and every version a stored firm day names; ` +
        "older ones are pruned.",
      query: BenchRubricQuerySchema,
      responses: {
        200: { description: "Current rubric and a page of versions.", body: FirmRubricHistorySchema },
        ...keyedResponses,
        422: "ValidationFailed",
      },
    }),
    put: op({
      operationId: "putBenchRubric",
      summary: "Store a new version of the firm's rubric",
      description:
        "Weights 0..3 per axis (absent: 1), at most 50 signals, thresholds (absent: the public ones). " +
        "Every PUT makes a new version; firm scores name the version that made them. The answer is the " +
        "new version only; GET pages through the others.",
      rateLimit: perKeyText(
        "New versions per key",
        DEFAULT_CONFIG.benchRubricRate,
        "BENCH_RUBRIC_RATE_LIMIT",
      ),
      body: FirmRubricRequestSchema,
      responses: {
        200: { description: "The new version.", body: FirmRubricSchema },
        ...keyedResponses,
        413: payloadTooLarge(BENCH_BODY_MAX_BYTES),
        422: "ValidationFailed",
        429: "TooManyRequests",
      },
    }),
  },
  {
    route: "/v1/bench/picks",
    get: op({
      operationId: "getBenchPicks",
      summary: "The firm's picks of recent days",
      description:
        "Each published day's candidates scored under the firm's rubric, with evidence, and the watch hits.",
      query: BenchPicksQuerySchema,
      responses: {
        200: { description: "The firm's days.", body: BenchPicksSchema },
        ...keyedResponses,
        422: "ValidationFailed",
      },
    }),
  },
  {
    route: "/v1/bench/tracking",
    get: op({
      operationId: "getBenchTracking",
      summary: "The watched papers' citation figures",
      description: "Figures recorded on each published day and each paper's change over the period.",
      query: BenchTrackingQuerySchema,
      responses: {
        200: { description: "Figures and changes.", body: BenchTrackingSchema },
        ...keyedResponses,
        422: "ValidationFailed",
      },
    }),
  },
  {
    route: "/v1/bench/notes",
    get: op({
      operationId: "listBenchNotes",
      summary: "The firm's weekly notes",
      description: "The weeks with a built note (built each Monday for the week before), newest first.",
      responses: { 200: { description: "The notes.", body: BenchNoteListSchema }, ...keyedResponses },
    }),
  },
  {
    route: "/v1/bench/notes/:week",
    get: op({
      operationId: "getBenchNote",
      summary: "One weekly note",
      description:
        "JSON by default; `Accept: text/markdown` or `text/html` (printable, loads nothing) for the text. A week " +
        "not built yet is composed from the stored days when it has begun; a week with no data is a note saying so.",
      path: BenchWeekPathSchema,
      responses: {
        200: {
          description: "The note.",
          body: BenchNoteSchema,
          alternatives: {
            "text/markdown": "the note in Markdown",
            "text/html": "the note as a printable page",
          },
        },
        ...keyedResponses,
        404: { description: "No such ISO week, or one that has not begun.", body: HttpErrorSchema },
        422: "ValidationFailed",
      },
    }),
  },
];

/** The bench key's firm and id, with one call spent, or the 401/403/429 answer. */
async function benchKey(
  event: H3Event,
  context: AppContext,
): Promise<{ firm: string; key: string } | Response> {
  const record = await authorize(event, context);
  if (record instanceof Response) return record;
  if (!FIRM_TIERS.includes(record.tier) || !record.firm) {
    return detail(
      403,
      `Bench endpoints take a bench key issued to a firm; this key is on the ${record.tier} tier.`,
    );
  }
  const spent = await spendOrRefuse(context, record);
  return spent instanceof Response ? spent : { firm: record.firm, key: record.id };
}

/** The firm of a bench key, or the 401/403 answer. */
async function firmOf(event: H3Event, context: AppContext): Promise<string | Response> {
  const key = await benchKey(event, context);
  return key instanceof Response ? key : key.firm;
}

const refused = (problems: readonly EntryProblem[]): Response =>
  jsonText({
    status: 422,
    body: validationErrorBody(problems.map((p) => valueError(["body", ...p.loc], p.input, p.message))),
  });

/** The day `days` counts back from: the latest published day, or today before the first. */
const latestDay = (context: AppContext): string =>
  context.snapshots.latestDate() ?? dayOf(new Date(context.now()));

function noteAnswer(event: H3Event, note: BenchNote): Response {
  const accept = event.req.headers.get("accept") ?? "";
  const wants = (type: string) => accept.split(",").some((part) => part.split(";")[0]?.trim() === type);
  if (wants("text/html")) {
    return new Response(noteHtml(note), { headers: { "content-type": "text/html; charset=utf-8" } });
  }
  if (wants("text/markdown")) {
    return new Response(noteMarkdown(note), { headers: { "content-type": "text/markdown; charset=utf-8" } });
  }
  return json(200, note);
}

/** GET /v1/bench/watchlist. */
async function getWatchlist(context: AppContext, event: H3Event): Promise<Response> {
  const firm = await firmOf(event, context);
  return typeof firm === "string" ? json(200, await context.bench.watchlist(firm)) : firm;
}

/** PUT /v1/bench/watchlist: the firm's watched papers, canonical. */
async function putWatchlist(context: AppContext, event: H3Event): Promise<Response> {
  const firm = await firmOf(event, context);
  if (typeof firm !== "string") return firm;
  const request = await validateRequest(
    event.req,
    { body: WatchlistRequestSchema },
    { url: event.url, maxBytes: BENCH_BODY_MAX_BYTES },
  );
  if (!request.ok) return jsonText(request);
  const result = canonicalWatchlist(request.value.body, new Date(context.now()).toISOString());
  if (!result.ok) return refused(result.problems);
  await context.bench.setWatchlist(firm, result.value);
  return json(200, result.value);
}

/** GET /v1/bench/rubric: the firm's rubric versions, newest first, a page at a time. */
async function getRubrics(context: AppContext, event: H3Event): Promise<Response> {
  const firm = await firmOf(event, context);
  if (typeof firm !== "string") return firm;
  const query = validateQuery(BenchRubricQuerySchema, event.url.searchParams);
  if (!query.ok) return jsonText({ status: 422, body: validationErrorBody(query.issues) });
  const { cursor } = query.value;
  const before = cursor === undefined ? undefined : Number(cursor);
  return json(200, await context.bench.rubrics(firm, { before, limit: FIRM_RUBRIC_PAGE }));
}

/** PUT /v1/bench/rubric: a new rubric version, under its own rate. */
async function putRubric(context: AppContext, event: H3Event): Promise<Response> {
  const firm = await benchKey(event, context);
  if (firm instanceof Response) return firm;
  const request = await validateRequest(
    event.req,
    { body: FirmRubricRequestSchema },
    { url: event.url, maxBytes: BENCH_BODY_MAX_BYTES },
  );
  if (!request.ok) return jsonText(request);
  const at = new Date(context.now()).toISOString();
  // Checked before a version number is taken, so a refused body leaves no gap and no trace.
  const check = resolveFirmRubric(request.value.body, 1, at);
  if (!check.ok) return refused(check.problems);
  const rate = context.config.benchRubricRate;
  const limited = await limitByKey(context, rate, firm.key, 1);
  if (!limited.allowed) return rateRefusal(limited, "rubric versions", rate);
  const stored = await context.bench.addRubric(firm.firm, (version) => ({ ...check.value, version }));
  return json(200, stored, limited.headers);
}

/** GET /v1/bench/picks: the firm's stored days, newest first. */
async function getPicks(context: AppContext, event: H3Event): Promise<Response> {
  const firm = await firmOf(event, context);
  if (typeof firm !== "string") return firm;
  const query = validateQuery(BenchPicksQuerySchema, event.url.searchParams);
  if (!query.ok) return jsonText({ status: 422, body: validationErrorBody(query.issues) });
  const to = latestDay(context);
  const from = addDays(to, 1 - query.value.days);
  const days = (await context.bench.days(firm, from, to)).reverse();
  return json(200, { firm, from, to, days });
}

/** GET /v1/bench/tracking: the watched papers' citation days and their changes. */
async function getTracking(context: AppContext, event: H3Event): Promise<Response> {
  const firm = await firmOf(event, context);
  if (typeof firm !== "string") return firm;
  const query = validateQuery(BenchTrackingQuerySchema, event.url.searchParams);
  if (!query.ok) return jsonText({ status: 422, body: validationErrorBody(query.issues) });
  const to = latestDay(context);
  const from = addDays(to, 1 - query.value.days);
  const { bench } = context;
  const [days, watchlist] = await Promise.all([bench.tracking(firm, from, to), bench.watchlist(firm)]);
  const changes = citationChanges(watchlist.papers, days, from, to);
  return json(200, { firm, from, to, changes, days: days.reverse() });
}

/** GET /v1/bench/notes: the firm's built notes, a line each. */
async function listNotes(context: AppContext, event: H3Event): Promise<Response> {
  const firm = await firmOf(event, context);
  if (typeof firm !== "string") return firm;
  const notes = (await context.bench.notes(firm)).map((note) => ({
    week: note.week,
    built_at: note.built_at,
    picks: note.picks.length,
  }));
  return json(200, { firm, notes });
}

/** GET /v1/bench/notes/{week}: the stored note, or one composed for a week under way. */
async function getNote(context: AppContext, event: H3Event): Promise<Response> {
  const firm = await firmOf(event, context);
  if (typeof firm !== "string") return firm;
  const path = validatePath(BenchWeekPathSchema, { week: pathParam(event, "week") });
  if (!path.ok) return jsonText({ status: 422, body: validationErrorBody(path.issues) });
  const { week } = path.value;
  const stored = await context.bench.note(firm, week);
  if (stored) return noteAnswer(event, stored);
  const days = weekDays(week);
  const today = dayOf(new Date(context.now()));
  if (!days || (days[0] as string) > today) return detail(404, `No note for week ${week}`);
  // A week under way (or past but never built) is composed on request and not stored: the
  // stored notes are the ones built when their week was over.
  const note = await composeNote(context.bench, firm, week, new Date(context.now()));
  return note ? noteAnswer(event, note) : detail(404, `No note for week ${week}`);
}

export function registerBenchRoutes(app: H3, context: AppContext): void {
  route(app, "/v1/bench/watchlist", {
    GET: (event) => getWatchlist(context, event),
    PUT: (event) => putWatchlist(context, event),
  });
  route(app, "/v1/bench/rubric", {
    GET: (event) => getRubrics(context, event),
    PUT: (event) => putRubric(context, event),
  });
  route(app, "/v1/bench/picks", { GET: (event) => getPicks(context, event) });
  route(app, "/v1/bench/tracking", { GET: (event) => getTracking(context, event) });
  route(app, "/v1/bench/notes", { GET: (event) => listNotes(context, event) });
  route(app, "/v1/bench/notes/:week", { GET: (event) => getNote(context, event) });
}

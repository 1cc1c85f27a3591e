import type { H3, H3Event } from "h3";
import { z } from "zod";
import { baseArxivId } from "../../pipeline/domain/arxiv-id.ts";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import { type ItemReading, readBibEntry, readJsonItem } from "../../pipeline/domain/library-items.ts";
import { withinHistory } from "../../pipeline/domain/papers-query.ts";
import {
  PersonalPicksQuerySchema,
  PersonalPicksSchema,
  ProfileErasedSchema,
  ProfileExportSchema,
} from "../../pipeline/domain/reader-answers.ts";
import {
  FollowsSchema,
  LibraryWriteSchema,
  PROFILE_BOUNDS,
  RatingPathSchema,
  RatingRequestSchema,
} from "../../pipeline/domain/reader-profile.ts";
import { TIERS } from "../../pipeline/domain/tiers.ts";
import { limitByKey, rateRefusal } from "../access/key-limit.ts";
import type { KeyRecord } from "../access/key-service.ts";
import { authFailure, authorize, quotaHeaders, spendOrRefuse } from "../access/keyed.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail, json, jsonText } from "../http/answers.ts";
import { pathParam, route } from "../http/route-table.ts";
import { payloadTooLarge } from "../openapi/common-responses.ts";
import type { OperationDoc, PathDoc } from "../openapi/operation.ts";
import { readBibtex } from "../readers/bibtex.ts";
import type { WriteRefusal } from "../readers/reader-service.ts";
import { checkDateParam } from "../validation/date-param.ts";
import { makeIssue, type ValidationIssue, validationErrorBody } from "../validation/errors.ts";
import { isJsonContentType, parseJsonBody } from "../validation/json-body.ts";
import { nodeRequest, readBodyLimited } from "../validation/read-body.ts";
import { validateBody, validateQuery, validateRequest } from "../validation/request.ts";

/** A library body: a Zotero or Mendeley export of a few thousand items fits with room to spare. */
const LIBRARY_BODY_MAX_BYTES = 2 * 1024 * 1024;
const SMALL_BODY_MAX_BYTES = 16 * 1024;
const BIBTEX_TYPES = ["application/x-bibtex", "text/x-bibtex"];

/** `application/json`: arXiv ids (strings) and CSL-JSON items (objects), in one list. */
const LibraryJsonSchema = z
  .array(z.unknown())
  .describe(
    "arXiv ids (`2401.12345`, `arXiv:2401.12345v2`, abs URLs) and CSL-JSON items (Zotero's and Mendeley's export), " +
      "in one list. An entry that names no arXiv id, DOI or title is listed as unreadable; the rest are kept.",
  );

const profileRate = `Free: profile writes and exports spend no quota; they count against ${DEFAULT_CONFIG.profileWriteRate.limit} per minute per key (PROFILE_WRITE_RATE_LIMIT).`;

const writeResponses = {
  401: "Unauthorized",
  422: "ValidationFailed",
  429: "TooManyRequests",
  503: "StoreUnavailable",
} as const;

const libraryOperation = (replace: boolean): OperationDoc => ({
  operationId: replace ? "replaceLibrary" : "addToLibrary",
  summary: replace ? "Replace your library" : "Add to your library",
  description:
    `${replace ? "Replaces the library with" : "Adds to the library"} the papers of the body, by its Content-Type: ` +
    "`application/json` takes a list of arXiv ids or CSL-JSON items; `application/x-bibtex` takes BibTeX, read with " +
    "`eprint` and `archivePrefix`, an arXiv URL or DOI, or a title and abstract. The answer lists what was added, " +
    "what was a duplicate and what could not be read, with the reason for each. A BibTeX file with a syntax error is " +
    "refused whole (422 naming the entry and line). Items whose arXiv id is not among the screened papers yet are " +
    "`pending`. Libraries hold at most " +
    Object.entries(PROFILE_BOUNDS)
      .map(([tier, bounds]) => `${bounds.library} items (${tier})`)
      .join(", ") +
    "; a write past that is a 413 that says the bound, and nothing is written. The personal model is refitted.",
  tags: ["readers"],
  keyed: true,
  rateLimit: profileRate,
  body: LibraryJsonSchema,
  responses: {
    200: { description: "What became of each item.", body: LibraryWriteSchema },
    ...writeResponses,
    413: payloadTooLarge(LIBRARY_BODY_MAX_BYTES),
    415: { description: "The body is neither JSON nor BibTeX.", body: HttpErrorSchema },
  },
});

/** The operations of this file, for the OpenAPI document. */
export const readerPaths: readonly PathDoc[] = [
  { route: "/v1/me/library", put: libraryOperation(true), post: libraryOperation(false) },
  {
    route: "/v1/me/ratings/:arxiv_id",
    put: {
      operationId: "ratePaper",
      summary: "Rate a screened paper",
      description:
        "1: more like this; -1: less like this. Only papers that were screened can be rated (404 otherwise). Ratings " +
        `are bounded per tier (${PROFILE_BOUNDS.free.ratings} on free); one past the bound is a 409.`,
      tags: ["readers"],
      keyed: true,
      rateLimit: profileRate,
      path: RatingPathSchema,
      body: RatingRequestSchema,
      responses: {
        200: { description: "The profile's new version.", body: z.object({ version: z.int() }) },
        404: { description: "The paper was never screened.", body: HttpErrorSchema },
        409: { description: "The tier's bound on ratings is reached.", body: HttpErrorSchema },
        ...writeResponses,
      },
    },
    delete: {
      operationId: "clearRating",
      summary: "Clear a rating",
      description: "Forgets the rating of one paper (nothing happens when there is none).",
      tags: ["readers"],
      keyed: true,
      rateLimit: profileRate,
      path: RatingPathSchema,
      responses: {
        200: { description: "The profile's version.", body: z.object({ version: z.int() }) },
        ...writeResponses,
      },
    },
  },
  {
    route: "/v1/me/follows",
    put: {
      operationId: "setFollows",
      summary: "Set followed authors and phrases",
      description:
        "Replaces both lists. A paper by a followed author comes first in your list, then one whose title or abstract " +
        "holds a followed phrase, each with the reason in `why_for_you`.",
      tags: ["readers"],
      keyed: true,
      rateLimit: profileRate,
      body: FollowsSchema,
      responses: {
        200: {
          description: "The follows and the profile's version.",
          body: FollowsSchema.extend({ version: z.int() }),
        },
        ...writeResponses,
      },
    },
  },
  {
    route: "/v1/me/profile",
    get: {
      operationId: "exportProfile",
      summary: "Export your profile",
      description:
        "Everything held for the key: the library as CSL-JSON (PUT it back to restore it), ratings, follows, the " +
        "personal model in brief, and when the feed token was issued (never the token).",
      tags: ["readers"],
      keyed: true,
      rateLimit: profileRate,
      responses: {
        200: { description: "The profile.", body: ProfileExportSchema },
        401: "Unauthorized",
        429: "TooManyRequests",
        503: "StoreUnavailable",
      },
    },
    delete: {
      operationId: "eraseProfile",
      summary: "Erase your profile",
      description:
        "Erases the library, ratings, follows, personal model and feed token at once, from the store every server " +
        "shares. Revoking the key does the same; rotating it keeps the profile but ends the feed token.",
      tags: ["readers"],
      keyed: true,
      rateLimit: profileRate,
      responses: {
        200: { description: "How many records went.", body: ProfileErasedSchema },
        401: "Unauthorized",
        429: "TooManyRequests",
        503: "StoreUnavailable",
      },
    },
  },
  {
    route: "/v1/me/picks",
    get: {
      operationId: "getPersonalPicks",
      summary: "Your list of a day",
      description:
        "The day's screened papers in your order: followed authors first, then followed phrases, then the blend of the " +
        "global on-topic likelihood and your personal model (each z-scored over the day, the personal one weighted 2); " +
        "a must-read the global model is sure of (likelihood >= 0.5) is never below 10th. An empty profile answers " +
        "the global order exactly. Each item carries `for_you` and `why_for_you`: the library or liked papers it is " +
        "nearest to, a followed author or phrase, and the global likelihood. Days within the tier's history.",
      tags: ["readers"],
      keyed: true,
      rateLimit: "One call of the quota.",
      query: PersonalPicksQuerySchema,
      responses: {
        200: {
          description: "The list.",
          body: PersonalPicksSchema,
          headers: { RateLimit: true, "RateLimit-Policy": true },
        },
        401: "Unauthorized",
        403: { description: "The day is outside the tier's history.", body: HttpErrorSchema },
        404: { description: "No day published yet, or none screened on that date.", body: HttpErrorSchema },
        422: "ValidationFailed",
        429: "TooManyRequests",
        503: "StoreUnavailable",
      },
    },
  },
];

function refusalAnswer(refusal: WriteRefusal, record: KeyRecord, headers: Record<string, string>): Response {
  switch (refusal.refused) {
    case "busy":
      return detail(503, "Another write to this profile is under way; try again in a moment.", {
        ...headers,
        "retry-after": "1",
      });
    case "revoked":
      return detail(401, authFailure("revoked"), headers);
    case "not_screened":
      return detail(404, `${refusal.arxiv_id} was never screened, so it cannot be rated`, headers);
    case "too_many":
      return detail(
        refusal.what === "library" ? 413 : 409,
        `The ${record.tier} tier's profile holds at most ${refusal.max} ${refusal.what === "library" ? "library items" : "ratings"}; ` +
          `this would make ${refusal.would_be}, so nothing was written.`,
        headers,
      );
  }
}

/** The key, and the profile-write rate spent: or the 401 / 429 that ends the request. */
async function writer(
  event: H3Event,
  context: AppContext,
): Promise<{ record: KeyRecord; headers: Record<string, string> } | Response> {
  const record = await authorize(event, context);
  if (record instanceof Response) return record;
  const rate = await limitByKey(context, context.config.profileWriteRate, record.id);
  if (!rate.allowed) return rateRefusal(rate, "profile writes", context.config.profileWriteRate);
  return { record, headers: rate.headers };
}

const isBibtex = (type: string | null) =>
  type !== null && BIBTEX_TYPES.includes(type.split(";")[0]?.trim().toLowerCase() ?? "");

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The library body's items by its Content-Type, or the answer that refuses it. */
async function libraryItems(event: H3Event): Promise<ItemReading[] | Response> {
  const node = nodeRequest(event.req);
  const type = (node ? node.headers["content-type"] : event.req.headers.get("content-type")) ?? null;
  if (isBibtex(type)) {
    const read = await readBodyLimited(event.req, LIBRARY_BODY_MAX_BYTES);
    if (!read.ok)
      return detail(
        413,
        `Request body too large: a library takes at most ${LIBRARY_BODY_MAX_BYTES} bytes (2 MiB)`,
      );
    let text: string;
    try {
      text = strictUtf8.decode(read.bytes);
    } catch {
      return detail(400, "A BibTeX body must be UTF-8 text");
    }
    const bib = await readBibtex(text);
    if (!bib.ok) {
      const issues = bib.errors.map((error) =>
        makeIssue(
          "bibtex_syntax",
          ["body", error.entry, ...(error.line === null ? [] : [error.line])],
          `BibTeX entry ${error.entry}${error.line === null ? "" : ` at line ${error.line}`}: ${error.reason}`,
          error.entry,
        ),
      );
      return jsonText({ status: 422, body: validationErrorBody(issues) });
    }
    if (bib.entries.length === 0)
      return detail(422, "The BibTeX body holds no entry (@article{...}, @misc{...})");
    return bib.entries.map(readBibEntry);
  }
  if (!isJsonContentType(type)) {
    return detail(
      415,
      "Expected Content-Type application/json (arXiv ids or CSL-JSON) or application/x-bibtex",
    );
  }
  const parsed = await parseJsonBody(event.req, { maxBytes: LIBRARY_BODY_MAX_BYTES });
  if (!parsed.ok) return jsonText(parsed);
  const body = validateBody(LibraryJsonSchema, parsed.value, parsed.exact);
  if (!body.ok) return jsonText({ status: 422, body: validationErrorBody(body.issues) });
  return body.value.map(readJsonItem);
}

export function registerReaderRoutes(app: H3, context: AppContext): void {
  const { readers } = context;

  const writeLibrary = (replace: boolean) => async (event: H3Event) => {
    const allowed = await writer(event, context);
    if (allowed instanceof Response) return allowed;
    const readings = await libraryItems(event);
    if (readings instanceof Response) return readings;
    const items = readings.flatMap((reading) => (reading.ok ? [reading.item] : []));
    const unreadable = readings.flatMap((reading) => (reading.ok ? [] : [reading.unreadable]));
    const result = await readers.writeLibrary(allowed.record, items, unreadable, replace);
    if ("refused" in result) return refusalAnswer(result, allowed.record, allowed.headers);
    return json(200, result, allowed.headers);
  };
  route(app, "/v1/me/library", { PUT: writeLibrary(true), POST: writeLibrary(false) });

  const rate = (clear: boolean) => async (event: H3Event) => {
    const allowed = await writer(event, context);
    if (allowed instanceof Response) return allowed;
    const request = await validateRequest(
      event.req,
      clear ? { path: RatingPathSchema } : { path: RatingPathSchema, body: RatingRequestSchema },
      { params: { arxiv_id: pathParam(event, "arxiv_id") }, url: event.url, maxBytes: SMALL_BODY_MAX_BYTES },
    );
    if (!request.ok) return jsonText(request, allowed.headers);
    const id = baseArxivId(request.value.path.arxiv_id);
    const body = request.value.body as { rating: 1 | -1 } | undefined;
    const result = await readers.rate(allowed.record, id, clear ? null : (body?.rating ?? null));
    if ("refused" in result) return refusalAnswer(result, allowed.record, allowed.headers);
    return json(200, { version: result.version }, allowed.headers);
  };
  route(app, "/v1/me/ratings/:arxiv_id", { PUT: rate(false), DELETE: rate(true) });

  route(app, "/v1/me/follows", {
    PUT: async (event) => {
      const allowed = await writer(event, context);
      if (allowed instanceof Response) return allowed;
      const request = await validateRequest(
        event.req,
        { body: FollowsSchema },
        { url: event.url, maxBytes: SMALL_BODY_MAX_BYTES },
      );
      if (!request.ok) return jsonText(request, allowed.headers);
      const result = await readers.follow(allowed.record, request.value.body);
      if ("refused" in result) return refusalAnswer(result, allowed.record, allowed.headers);
      return json(200, { ...result.follows, version: result.version }, allowed.headers);
    },
  });

  route(app, "/v1/me/profile", {
    GET: async (event) => {
      const allowed = await writer(event, context);
      if (allowed instanceof Response) return allowed;
      return json(200, await readers.exportProfile(allowed.record), allowed.headers);
    },
    DELETE: async (event) => {
      const allowed = await writer(event, context);
      if (allowed instanceof Response) return allowed;
      return json(200, { erased: await readers.erase(allowed.record.id) }, allowed.headers);
    },
  });

  route(app, "/v1/me/picks", { GET: (event) => personalPicks(event, context) });
}

/** GET /v1/me/picks: the day's screened papers in the key's own order, charged as one call. */
async function personalPicks(event: H3Event, context: AppContext): Promise<Response> {
  const record = await authorize(event, context);
  if (record instanceof Response) return record;
  const query = validateQuery(PersonalPicksQuerySchema, event.url.searchParams, { lowered: ["limit"] });
  const dateIssue = query.ok && query.value.date !== undefined ? checkDateParam(query.value.date) : undefined;
  if (!query.ok || dateIssue) {
    const issues: ValidationIssue[] = query.ok
      ? [makeIssue(dateIssue?.type ?? "", ["query", "date"], dateIssue?.msg ?? "", query.value.date)]
      : query.issues;
    return jsonText({ status: 422, body: validationErrorBody(issues) });
  }
  await context.snapshots.ready();
  const latest = context.snapshots.latestDate();
  const date = query.value.date ?? latest;
  if (date === null || latest === null) return detail(404, "No day has been published yet");
  const history = TIERS[record.tier].history_days;
  if (!withinHistory(date, latest, history)) {
    return detail(
      403,
      `${date} is outside the ${history} days of history of the ${record.tier} tier.`,
      quotaHeaders(record, await context.keys.usage(record)),
    );
  }
  const spent = await spendOrRefuse(context, record);
  if (spent instanceof Response) return spent;
  const maxLimit = TIERS[record.tier].max_limit;
  const limit = Math.min(query.value.limit, maxLimit);
  const answer = await context.readers.picksJson(record, date, limit, query.value.limit > maxLimit);
  if (answer === null) return detail(404, `No screened papers for ${date}`, spent.headers);
  return jsonText({ status: 200, body: answer }, spent.headers);
}

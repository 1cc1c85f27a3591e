import type { H3, H3Event } from "h3";
import { z } from "zod";
import { type Health, HealthSchema } from "../../pipeline/domain/api-answers.ts";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import { RankerCardSchema } from "../../pipeline/domain/ranker-card.ts";
import { RubricSchema } from "../../pipeline/domain/rubric.ts";
import { ScreenedDaySchema } from "../../pipeline/domain/screened.ts";
import { DailySnapshotSchema, RecentSchema, StatsSchema } from "../../pipeline/domain/snapshot.ts";
import { limitByIp } from "../access/ip-limit.ts";
import { describeWindow } from "../access/key-limit.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail, json } from "../http/answers.ts";
import { sendPrepared } from "../http/prepared.ts";
import { pathParam, route } from "../http/route-table.ts";
import type { OperationDoc, PathDoc } from "../openapi/operation.ts";
import { perAddressText } from "../openapi/rate-limits.ts";
import { DayUnavailableError, OLDER_DAY_BYTES, RECENT_DAYS } from "../snapshots/snapshot-cache.ts";
import { checkDateParam } from "../validation/date-param.ts";

export const ConditionalHeadersSchema = z.object({
  "If-None-Match": z
    .string()
    .optional()
    .describe("the ETag of a copy the client holds: a 304 without a body when it is still current"),
});

/** The date is checked as pydantic checks `datetime.date` (../date-param.ts); this says what it takes. */
const DailyPathSchema = z.object({
  date: z.iso.date().describe("an announcement day, YYYY-MM-DD"),
});

function snapshotOperation(
  operationId: string,
  summary: string,
  description: string,
  body: z.ZodType,
  more: Partial<OperationDoc> = {},
): OperationDoc {
  const validators = { ETag: true, "Cache-Control": true } as const;
  return {
    operationId,
    summary,
    description: `${description} The same bytes a static host serves at this path; no key.`,
    tags: ["snapshots"],
    headers: ConditionalHeadersSchema,
    ...more,
    responses: {
      200: { description: "The published file.", body, headers: validators },
      304: { description: "The copy named in If-None-Match is current.", headers: validators },
      404: { description: "Nothing is published there yet.", body: HttpErrorSchema },
      ...more.responses,
    },
  };
}

/** The operations of this file, for the OpenAPI document. */
export const readPaths: readonly PathDoc[] = [
  {
    route: "/health",
    get: {
      operationId: "getHealth",
      summary: "Health",
      description:
        "Whether the instance is up and its store reachable. Still 200 when the store is down: the " +
        "snapshot endpoints keep working, so the instance should stay in rotation.",
      tags: ["health"],
      responses: { 200: { description: "The instance's state.", body: HealthSchema } },
    },
  },
  {
    route: "/v1/stats",
    get: snapshotOperation(
      "getStats",
      "Pipeline statistics",
      "Counts over every published day.",
      StatsSchema,
    ),
  },
  {
    route: "/v1/axes",
    get: snapshotOperation(
      "getAxes",
      "The rubric",
      "The nine axes (A1..A9, 0..5 each) and REG FIT (1..3), with their levels and signals.",
      RubricSchema,
    ),
  },
  {
    route: "/v1/ranker",
    get: snapshotOperation(
      "getRanker",
      "The ranker card",
      "What orders and chooses the picks: the relevance model's version, the labelled days it was trained " +
        "on, its figures on days it never saw (nested, with the selection rules compared) and what it cannot " +
        "see (or `rules` when the rubric's total ranks).",
      RankerCardSchema,
    ),
  },
  {
    route: "/v1/recent",
    get: snapshotOperation(
      "getRecent",
      "Recent days",
      "The latest days, newest first, picks in brief.",
      RecentSchema,
    ),
  },
  {
    route: "/v1/daily/latest",
    get: snapshotOperation(
      "getLatestDay",
      "The latest day's picks",
      "The newest published day: its picks in full and the run's summary.",
      DailySnapshotSchema,
    ),
  },
  {
    route: "/v1/daily/:date",
    get: snapshotOperation(
      "getDay",
      "One day's picks",
      "A published day: its picks in full and the run's summary.",
      DailySnapshotSchema,
      {
        path: DailyPathSchema,
        rateLimit:
          `The newest ${RECENT_DAYS} days are held in memory and have no limit. Older days are read from ` +
          `their files (and kept a while, within ${OLDER_DAY_BYTES / 1024 / 1024} MiB with their compressed ` +
          `forms); a read of a day not held counts against ${perAddressText(DEFAULT_CONFIG.oldDayRate.limit, DEFAULT_CONFIG.oldDayRate.windowSeconds, "OLD_DAY_RATE_LIMIT")}`,
        responses: {
          422: "ValidationFailed",
          429: "TooManyRequests",
          503: {
            description:
              "An older day whose file in the snapshots' bucket is not the one the manifest names: refused, " +
              "and named under `snapshots.refused` in /health; Retry-After says when to try again.",
            body: HttpErrorSchema,
            headers: { "Retry-After": true },
          },
        },
      },
    ),
  },
  {
    route: "/v1/screened/:date",
    get: snapshotOperation(
      "getScreenedDay",
      "One day's screened papers",
      "Every candidate a published day screened, in the model's order: its rubric levels, total and REG " +
        "FIT, the must-read and on-topic likelihoods, whether it was picked (the day's picks, in their " +
        "order) and why or why not, in plain words. Days published before screened files existed have " +
        "none (404).",
      ScreenedDaySchema,
      {
        path: DailyPathSchema,
        rateLimit:
          `Read from its file when asked and kept a while with the older days; a read of one not held ` +
          `counts against ${perAddressText(DEFAULT_CONFIG.oldDayRate.limit, DEFAULT_CONFIG.oldDayRate.windowSeconds, "OLD_DAY_RATE_LIMIT")}`,
        responses: { 422: "ValidationFailed", 429: "TooManyRequests" },
      },
    ),
  },
];

/** The public, unkeyed routes: health and the snapshot files (also served by the fast path). */
export function registerReadRoutes(app: H3, context: AppContext): void {
  const snapshot = async (event: H3Event, pathname: string): Promise<Response> => {
    const prepared = await context.snapshots.read(pathname);
    if (!prepared) return detail(404, "No snapshot has been published yet");
    return sendPrepared(prepared, event.req);
  };

  route(app, "/health", {
    GET: async () => {
      const storeUp = await context.store.ping().catch(() => false);
      const origin = context.snapshots.origin();
      // Still 200 when the store or the bucket is down: the last good snapshots are still served, so
      // the instance should stay in rotation.
      return json(200, {
        status: storeUp && origin.problem === null && origin.refused.length === 0 ? "ok" : "degraded",
        version: context.version,
        latest_snapshot: context.snapshots.latestDate(),
        store: { kind: context.store.kind, reachable: storeUp },
        snapshots: origin,
        skipped_days: [...context.snapshots.problems()],
        circuits: context.semantic.circuits?.() ?? {},
      } satisfies Health);
    },
  });
  for (const path of ["/v1/stats", "/v1/axes", "/v1/ranker", "/v1/recent", "/v1/daily/latest"]) {
    route(app, path, { GET: (event) => snapshot(event, path) });
  }
  // A dated file: a day's picks or its screened candidates.
  const datedFile = async (event: H3Event, folder: "daily" | "screened"): Promise<Response> => {
    const date = pathParam(event, "date");
    const issue = checkDateParam(date);
    if (issue)
      return json(422, {
        detail: [{ type: issue.type, loc: ["path", "date"], msg: issue.msg, input: date }],
      });
    // Older days are not held in memory: read from their files, and kept a while. Such a read costs
    // a file, a hash and maybe a compression, so it has a per-address rate; held days have none.
    const path = `/v1/${folder}/${date}`;
    let limited: Record<string, string> = {};
    if (!context.snapshots.lookup(path)) {
      const { limit, windowSeconds, name } = context.config.oldDayRate;
      const rate = await limitByIp(context, event, name, limit, windowSeconds);
      if (!rate.allowed) {
        return detail(
          429,
          `Too many reads of days older than the ones held in memory: at most ${limit} per ${describeWindow(windowSeconds)} per ` +
            `client address. Retry after ${rate.headers["retry-after"]} seconds, or read the recent days.`,
          rate.headers,
        );
      }
      limited = rate.headers;
    }
    let prepared: Awaited<ReturnType<typeof context.snapshots.read>>;
    try {
      prepared = await context.snapshots.read(path);
    } catch (error) {
      // Bytes in the bucket that are not the manifest's: not served, and not a 404 a CDN would keep.
      if (!(error instanceof DayUnavailableError)) throw error;
      return detail(503, error.message, { ...limited, "retry-after": "60" });
    }
    if (!prepared) {
      const what = folder === "daily" ? "No snapshot" : "No screened file";
      return detail(404, `${what} for ${date}`, limited);
    }
    const answer = sendPrepared(prepared, event.req);
    for (const [name, value] of Object.entries(limited)) answer.headers.set(name, value);
    return answer;
  };
  route(app, "/v1/daily/:date", { GET: (event) => datedFile(event, "daily") });
  route(app, "/v1/screened/:date", { GET: (event) => datedFile(event, "screened") });
}

import { z } from "zod";
import { ForYouDeliveredSchema } from "./for-you-delivery.ts";
import { type DailySnapshot, DayCountsSchema } from "./snapshot.ts";
import type { SubmissionRecord } from "./submission.ts";

/**
 * Every event type a receiver may see. `webhook.test` is sent on request only, never subscribed to;
 * `bench.note.ready` reaches only the endpoints of the keys of the note's firm.
 */
export const WEBHOOK_EVENT_TYPES = [
  "daily.published",
  "submission.scored",
  "bench.note.ready",
  "webhook.test",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const SUBSCRIBABLE_EVENTS = ["daily.published", "submission.scored", "bench.note.ready"] as const;
export const SubscribableEventSchema = z.enum(SUBSCRIBABLE_EVENTS);
export type SubscribableEvent = z.infer<typeof SubscribableEventSchema>;

/** At most this many endpoints per key. */
export const MAX_WEBHOOKS_PER_KEY = 10;

/** True for an absolute http(s) URL without credentials: the only kind an endpoint may have. */
export function isWebhookUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password;
}

/** `POST /v1/webhooks`: where to send which events. */
export const WebhookCreateSchema = z.object({
  url: z
    .string()
    .min(10)
    .max(2000)
    .refine(isWebhookUrl, "the url must be an absolute http or https URL without a user name or password")
    .describe("where events are POSTed; an http(s) url on a public address, checked again at every delivery"),
  events: z
    .array(SubscribableEventSchema)
    .min(1)
    .max(SUBSCRIBABLE_EVENTS.length * 2)
    .describe(
      "the event types to send: daily.published, submission.scored (webhook.test is sent on request)",
    ),
  description: z.string().max(200).default("").describe("a note for yourself, such as where it leads"),
});
export type WebhookCreate = z.infer<typeof WebhookCreateSchema>;

export const WebhookStatusSchema = z.enum(["enabled", "disabled"]);

/** An endpoint as its owner reads it: never its secret. */
export const WebhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(SubscribableEventSchema),
  description: z.string(),
  status: WebhookStatusSchema,
  disabled_reason: z.string().nullable().describe("why delivery stopped, when status is disabled"),
  created_at: z.iso.datetime(),
  failing_since: z.iso
    .datetime()
    .nullable()
    .describe("the first failed attempt since the last delivered one; 5 days of failures disable"),
  previous_secret_expires_at: z.iso
    .datetime()
    .nullable()
    .describe("after a rotation, until when the old secret signs too"),
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookListSchema = z.object({ webhooks: z.array(WebhookEndpointSchema) });

/** The answer of a creation or a rotation: the only time the signing secret is shown. */
export const WebhookSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().describe("`whsec_` + base64: verify signatures with it; shown only this once"),
});

/** One try at delivering an event to an endpoint. */
export const DeliveryAttemptSchema = z.object({
  delivery_id: z.string(),
  event_id: z.string().describe("the webhook-id header: the same on every attempt of the event"),
  event_type: z.enum(WEBHOOK_EVENT_TYPES),
  attempt: z.int().min(1),
  attempted_at: z.iso.datetime(),
  status_code: z.int().nullable().describe("the HTTP status the endpoint answered, if it answered"),
  error_code: z.string().nullable().describe("why no answer counted: timeout, unreachable, url_refused, ..."),
  duration_ms: z.int().min(0),
  delivered: z.boolean(),
  next_retry_at: z.iso.datetime().nullable().describe("when the next attempt is due; null when none is"),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;

export const DeliveryListSchema = z.object({
  webhook_id: z.string(),
  attempts: z.array(DeliveryAttemptSchema).describe("the most recent attempts, newest first"),
});

/** The answer of `test` and `retry`: what was queued. */
export const DeliveryQueuedSchema = z.object({
  delivery_id: z.string(),
  event_id: z.string(),
  event_type: z.enum(WEBHOOK_EVENT_TYPES),
  note: z.string(),
});

// Any text: an id of the wrong form is simply unknown (404), as another key's is.
export const WebhookPathSchema = z.object({
  webhook_id: z.string().describe("the id POST /v1/webhooks answered"),
});
export const DeliveryPathSchema = WebhookPathSchema.extend({
  delivery_id: z.string().describe("a delivery_id from the deliveries list"),
});

/** The body of every delivery (Standard Webhooks): `type`, `timestamp` (ISO 8601) and `data`. */
export const WebhookPayloadSchema = z.object({
  type: z.enum(WEBHOOK_EVENT_TYPES),
  timestamp: z.iso.datetime(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

/** The `data` of a `daily.published` (dailyPublishedData), and the list a key with a profile gets. */
export const DailyPublishedDataSchema = z.object({
  date: z.iso.date(),
  sample: z.boolean().describe("true for the offline sample days"),
  counts: DayCountsSchema,
  picks: z.array(
    z.object({
      arxiv_id: z.string(),
      rank: z.int().min(1),
      title: z.string(),
      total: z.int().describe("the rubric's total, 0..45"),
      must_read: z
        .number()
        .optional()
        .describe("the relevance model's must-read likelihood, when it gave one"),
    }),
  ),
  snapshot_url: z.string().describe("the day in full: GET /v1/daily/{date}"),
  for_you: ForYouDeliveredSchema.optional(),
});

/** A `daily.published` delivery's body. */
export const DailyPublishedPayloadSchema = WebhookPayloadSchema.extend({
  type: z.literal("daily.published"),
  data: DailyPublishedDataSchema,
});

/**
 * The content a signature covers, as Standard Webhooks defines it: `{id}.{timestamp}.{body}` with the
 * timestamp in whole seconds. Example: signedContent("msg_1", 1700000000, "{}") = "msg_1.1700000000.{}".
 */
export function signedContent(id: string, timestampSeconds: number, body: string): string {
  return `${id}.${timestampSeconds}.${body}`;
}

/** The webhook-signature header: space-separated `v1,<base64>` signatures, one per secret in use. */
export function signatureHeader(signatures: readonly string[]): string {
  return signatures.map((signature) => `v1,${signature}`).join(" ");
}

/** About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: the waits after the first to seventh failure. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];

/** Failing every attempt this long disables an endpoint. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;

/**
 * How long to wait after failed attempt `attempt` (1-based), or null when the schedule is spent.
 * `random` in [0, 1) spreads each wait by up to ±20%, so endpoints that failed together do not retry
 * together. Example: retryDelayMs(1, [5000], 0.5) = 5000.
 */
export function retryDelayMs(attempt: number, schedule: readonly number[], random: number): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  return Math.max(1, Math.round(base * (0.8 + 0.4 * random)));
}

/** Whether an endpoint failing since `failingSince` (epoch ms; null: not failing) is to be disabled at `now`. */
export function shouldDisable(failingSince: number | null, now: number, disableAfterMs: number): boolean {
  return failingSince !== null && now - failingSince >= disableAfterMs;
}

/** Parses `WEBHOOK_RETRY_SCHEDULE_MS` (comma-separated waits in ms); the message says what was expected. */
export function parseRetrySchedule(raw: string): readonly number[] | string {
  const parts = raw.split(",").map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => !/^\d+$/.test(part) || Number(part) < 1)) {
    return `Expected WEBHOOK_RETRY_SCHEDULE_MS to be comma-separated whole milliseconds above 0, got \`${raw}\``;
  }
  return parts.map(Number);
}

/** The one event id of a day's publication, whichever process notices it first. */
export const dailyEventId = (date: string): string => `evt_daily_${date}`;

/** The one event id of a firm's weekly note (store keys are lowercase: `2026-W47` -> `2026-w47`). */
export const benchNoteEventId = (firm: string, week: string): string =>
  `evt_note_${firm}_${week.toLowerCase()}`;

/** What a `bench.note.ready` event carries: where to fetch the note, not the note itself. */
export function benchNoteReadyData(
  note: { firm: string; week: string; picks: readonly unknown[] },
  siteUrl: string,
): Record<string, unknown> {
  return {
    firm: note.firm,
    week: note.week,
    picks: note.picks.length,
    note_url: `${siteUrl.replace(/\/+$/, "")}/v1/bench/notes/${note.week}`,
  };
}

/** The one event id of a submission's scoring. */
export const scoredEventId = (submissionId: number): string => `evt_scored_${submissionId}`;

/**
 * The days to announce: published days not yet announced, oldest first, whatever their date (a
 * missed Tuesday curated after Wednesday is news too).
 */
export function daysToAnnounce(published: readonly string[], announced: ReadonlySet<string>): string[] {
  return published.filter((date) => !announced.has(date)).sort();
}

/**
 * On a store with no record of announced days yet, the published days that count as announced: all
 * of them on a first start (the days already there are not news), or, on a store an older version
 * left with only its watermark (the newest day it announced), those up to the watermark.
 */
export function daysAnnouncedBefore(published: readonly string[], watermark: string | null): string[] {
  return published.filter((date) => watermark === null || date <= watermark).sort();
}

/** What a `daily.published` event carries: enough to act on without fetching the day. */
export function dailyPublishedData(day: DailySnapshot, siteUrl: string): Record<string, unknown> {
  return {
    date: day.date,
    sample: day.sample,
    counts: day.counts,
    picks: day.picks.map((pick) => ({
      arxiv_id: pick.arxiv_id,
      rank: pick.rank,
      title: pick.title,
      total: pick.scores.total,
      ...(pick.relevance?.must_read === undefined ? {} : { must_read: pick.relevance.must_read }),
    })),
    snapshot_url: `${siteUrl.replace(/\/+$/, "")}/v1/daily/${day.date}`,
  };
}

/** What a `submission.scored` event carries: never the contact email. */
export function submissionScoredData(
  record: Pick<SubmissionRecord, "id" | "runtime_name" | "vendor" | "scores" | "scored_at">,
  rank: number | null,
): Record<string, unknown> {
  return {
    submission_id: record.id,
    runtime_name: record.runtime_name,
    vendor: record.vendor,
    total: record.scores?.total ?? null,
    leaderboard_rank: rank,
    scored_at: record.scored_at,
    submission_url: `/v1/score/submission/${record.id}`,
  };
}

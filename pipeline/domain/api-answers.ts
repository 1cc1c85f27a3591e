import { z } from "zod";
import { CircuitStateSchema } from "./circuit.ts";
import { PapersQuerySchema } from "./papers-query.ts";
import { PickSchema } from "./pick.ts";
import { RelevanceSchema } from "./relevance-model.ts";
import { AXIS_IDS, type AxisId, RegFitSchema, ScoresSchema } from "./score.ts";
import { LeaderboardEntrySchema, SubmissionStatusSchema } from "./submission.ts";
import { TierLimitsSchema, TierNameSchema } from "./tiers.ts";

// The HTTP answers that are not published files: their one schema, shared by the routes that build them
// and the OpenAPI document that describes them.

/** `GET /health`. */
/** A day file the server does not serve, and why (`/health`). */
export const SkippedDaySchema = z.object({
  file: z.string().describe("the file's name under v1/daily"),
  reason: z.string(),
});
export type SkippedDay = z.infer<typeof SkippedDaySchema>;

/** Where a server's published files come from, and how its last look at them went (`/health`). */
export const RefusedFileSchema = z.object({
  file: z.string().describe("the published file, e.g. `v1/daily/2026-11-20.json`"),
  reason: z.string().describe("how its bytes in the bucket differ from what the manifest names"),
});
export type RefusedFile = z.infer<typeof RefusedFileSchema>;

export const PublishStatusSchema = z.object({
  state: z
    .enum(["under_way", "failed", "interrupted"])
    .describe(
      "under_way: a publisher holds the lease; failed: the last publish stopped with an error; interrupted: " +
        "its publisher died (its lease ran out). The last complete publish is served in every case",
    ),
  since: z.string().nullable().describe("when that publish started"),
  reason: z.string().nullable().describe("why a failed publish stopped"),
});
export type PublishStatus = z.infer<typeof PublishStatusSchema>;

export const SnapshotOriginStatusSchema = z.object({
  kind: z.enum(["folder", "bucket"]),
  origin: z
    .string()
    .describe(
      "`s3://bucket/prefix` for a bucket; `folder` for the server's own folder (its path is not shown)",
    ),
  last_poll_at: z
    .string()
    .nullable()
    .describe("when the bucket's manifest was last read or found unchanged; null for a folder"),
  manifest_newest_day: z.string().nullable().describe("the newest day the bucket's manifest names"),
  stale_seconds: z
    .number()
    .int()
    .nullable()
    .describe("while polls fail: seconds since the last good one (the last good set is served meanwhile)"),
  problem: z.string().nullable().describe("why the last poll failed or its manifest was refused"),
  refused: z
    .array(RefusedFileSchema)
    .describe(
      "files whose bytes in the bucket are not the ones the manifest names: each keeps its last good copy (or is not served); the rest are served as usual",
    ),
  publish: PublishStatusSchema.nullable().describe(
    "a publish to the bucket that is under way, failed or interrupted, from its lease; null when none is",
  ),
});
export type SnapshotOriginStatus = z.infer<typeof SnapshotOriginStatusSchema>;

export const HealthSchema = z.object({
  status: z
    .enum(["ok", "degraded"])
    .describe(
      "degraded while the key and usage store or the snapshots' bucket is unreachable, or a file in the bucket is refused; the last good snapshots are still served",
    ),
  version: z.string(),
  latest_snapshot: z.string().nullable().describe("the newest published day; null before the first"),
  store: z.object({ kind: z.enum(["memory", "sqlite", "redis"]), reachable: z.boolean() }),
  snapshots: SnapshotOriginStatusSchema,
  skipped_days: z
    .array(SkippedDaySchema)
    .describe(
      "published day files left out because they cannot be read or are not snapshots; the rest are served",
    ),
  circuits: z
    .record(z.string(), CircuitStateSchema)
    .describe(
      'the upstreams whose circuit breaker is not closed, e.g. {"llm": "open"}: calls to them fail at once ' +
        "(the semantic review answers model_unavailable) until a probe after the cool-down succeeds",
    ),
});
export type Health = z.infer<typeof HealthSchema>;

const KeyIdSchema = z
  .string()
  .regex(/^key_[0-9a-f]{16}$/)
  .describe("the key's public id: safe to log, useless as a key");

/** `POST /v1/keys`: the new key, shown in this answer and never again. */
export const KeyIssuedSchema = z.object({
  key: z.string().describe("the API key; send it in the X-API-Key header"),
  key_id: KeyIdSchema,
  tier: TierNameSchema,
  limits: TierLimitsSchema,
  created_at: z.iso.datetime(),
  note: z.string(),
});
export type KeyIssued = z.infer<typeof KeyIssuedSchema>;

/** `GET /v1/me`: the caller's key and its quota window. */
export const KeyUsageSchema = z.object({
  key_id: KeyIdSchema,
  tier: TierNameSchema,
  label: z.string(),
  created_at: z.iso.datetime(),
  limits: TierLimitsSchema,
  usage: z.object({
    used: z.int().min(0).describe("calls spent in the current window"),
    remaining: z.int().min(0).nullable().describe("null on an unlimited tier"),
    window_start: z.iso.datetime(),
    resets_at: z.iso.datetime(),
  }),
});
export type KeyUsage = z.infer<typeof KeyUsageSchema>;

const AxisLevel = z.int().min(0).max(5);

/** An item of `GET /v1/papers`: the pick's scores without the evidence behind them. */
export const PaperListItemSchema = z.object({
  ...PickSchema.pick({
    arxiv_id: true,
    date: true,
    rank: true,
    title: true,
    authors: true,
    categories: true,
    abs_url: true,
    pdf_url: true,
  }).shape,
  total: ScoresSchema.shape.total,
  must_read: RelevanceSchema.shape.must_read,
  reg_fit: RegFitSchema.shape.score,
  axes: z.object(
    Object.fromEntries(AXIS_IDS.map((id) => [id, AxisLevel])) as Record<AxisId, typeof AxisLevel>,
  ),
  scorer: ScoresSchema.shape.scorer,
  rubric_version: ScoresSchema.shape.rubric_version,
});
export type PaperListItem = z.infer<typeof PaperListItemSchema>;

/** `GET /v1/papers`: the filters as applied (after the tier's caps), the count and one page. */
export const PapersListSchema = z.object({
  tier: TierNameSchema,
  applied: PapersQuerySchema.extend({
    from: z.string().nullable().describe("oldest day searched; null before the first snapshot"),
    to: z.string().nullable().describe("newest day searched"),
    capped: z.array(z.enum(["days", "limit"])).describe("requested values lowered to the tier's maximum"),
  }),
  total: z.int().min(0).describe("picks matching the filters"),
  returned: z.int().min(0),
  papers: z.array(PaperListItemSchema),
});
export type PapersList = z.infer<typeof PapersListSchema>;

/** `POST /v1/score/submit`: accepted for scoring; poll `poll_url` for the result. */
export const SubmissionAcceptedSchema = z.object({
  submission_id: z.int().min(1),
  status: SubmissionStatusSchema,
  submitted_at: z.iso.datetime(),
  poll_url: z.string(),
  note: z.string(),
});
export type SubmissionAccepted = z.infer<typeof SubmissionAcceptedSchema>;

/** `GET /v1/score/leaderboard`: the scored submissions, best first. */
export const LeaderboardSchema = z.object({
  limit: z.int().min(1),
  total: z.int().min(0).describe("scored submissions in all"),
  entries: z.array(LeaderboardEntrySchema),
});
export type Leaderboard = z.infer<typeof LeaderboardSchema>;

/** `GET /v1/openapi.json`: only its frame; the OpenAPI 3.1 specification says the rest. */
export const OpenApiDocumentSchema = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

import { z } from "zod";
import { AXIS_IDS, type AxisId, ScoresSchema } from "./score.ts";

/**
 * The scheme rule as a pattern rather than a refine: FastAPI reports it as `string_pattern_mismatch`
 * with the pattern in `ctx`, and the OpenAPI document and JSON Schema carry it as `pattern`, so a
 * client can check it before sending. Whether the rest is a fetchable URL is the worker's to say.
 */
export const SUBMISSION_URL_PATTERN = "^https?://\\S+$";

/** `POST /v1/score/submit`: an agent runtime put forward for scoring on the rubric. */
export const SubstrateSubmissionSchema = z.object({
  runtime_name: z.string().min(2).max(80).describe("the runtime's name, e.g. AgentBox"),
  vendor: z.string().min(2).max(80).describe("who makes it"),
  url: z
    .string()
    .min(8)
    .max(400)
    .regex(new RegExp(SUBMISSION_URL_PATTERN))
    .describe("an http(s) page about the runtime; fetched once, its text is scored with the description"),
  description: z.string().min(40).max(2000).describe("what the runtime does, in prose"),
  contact_email: z.string().min(3).max(120).describe("where to reach the submitter; never shown"),
});
export type SubstrateSubmission = z.infer<typeof SubstrateSubmissionSchema>;

export const SUBMISSION_STATUSES = ["queued", "fetching", "scoring", "scored", "failed"] as const;
export const SubmissionStatusSchema = z.enum(SUBMISSION_STATUSES);
export type SubmissionStatus = z.infer<typeof SubmissionStatusSchema>;

export const StatusChangeSchema = z.object({ status: SubmissionStatusSchema, at: z.iso.datetime() });
export type StatusChange = z.infer<typeof StatusChangeSchema>;

/**
 * Why a submission failed, as a code for programs and a sentence the submitter can act on. The sentence
 * names no address, port or network error: a url can point anywhere, and the answer must not map what
 * the server can reach. `detail` says exactly what happened, for the operator: it is kept in the
 * store's record and logged, never answered.
 */
export const FAILURE_CODES = [
  "url_refused",
  "dns_failed",
  "unreachable",
  "http_status",
  "too_many_redirects",
  "too_large",
  "timeout",
  "gave_up",
] as const;
export const PublicFailureSchema = z.object({ code: z.enum(FAILURE_CODES), reason: z.string() });
export const FailureSchema = PublicFailureSchema.extend({
  detail: z
    .string()
    .optional()
    .describe("for the operator only: addresses, error codes, what the host answered"),
});
export type Failure = z.infer<typeof FailureSchema>;
export type PublicFailure = z.infer<typeof PublicFailureSchema>;

/** What the worker found at the url; `used` says whether its text went into the scores. */
export const PageSummarySchema = z.object({
  final_url: z.string(),
  redirects: z.int().min(0),
  http_status: z.int(),
  content_type: z.string().nullable(),
  bytes: z.int().min(0),
  text_chars: z.int().min(0),
  used: z.boolean(),
});
export type PageSummary = z.infer<typeof PageSummarySchema>;

export const ScoreBasisSchema = z.enum(["description_and_page", "description"]);

/** A submission as the store keeps it. The contact email is here and nowhere in an answer. */
export const SubmissionRecordSchema = z.object({
  id: z.int().min(1),
  ...SubstrateSubmissionSchema.shape,
  status: SubmissionStatusSchema,
  submitted_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  history: z.array(StatusChangeSchema).describe("every status change, oldest first"),
  attempts: z.int().min(0).describe("times the worker started on it; more than one after a crash"),
  page: PageSummarySchema.nullable(),
  basis: ScoreBasisSchema.nullable(),
  note: z.string().nullable().describe("what the submitter should know about how it was scored"),
  failure: FailureSchema.nullable(),
  scores: ScoresSchema.nullable(),
  scored_at: z.iso.datetime().nullable(),
});
export type SubmissionRecord = z.infer<typeof SubmissionRecordSchema>;

/** `GET /v1/score/submission/{submission_id}`. */
export const SubmissionViewSchema = SubmissionRecordSchema.omit({ id: true, contact_email: true }).extend({
  submission_id: z.int().min(1),
  failure: PublicFailureSchema.nullable(),
});
export type SubmissionView = z.infer<typeof SubmissionViewSchema>;

/** A new record, queued at `at` (ISO time). */
export function newSubmission(id: number, input: SubstrateSubmission, at: string): SubmissionRecord {
  const { runtime_name, vendor, url, description, contact_email } = input;
  return {
    id,
    runtime_name,
    vendor,
    url,
    description,
    contact_email,
    status: "queued",
    submitted_at: at,
    updated_at: at,
    history: [{ status: "queued", at }],
    attempts: 0,
    page: null,
    basis: null,
    note: null,
    failure: null,
    scores: null,
    scored_at: null,
  };
}

/** The record moved to `status` at `at`, with `changes` applied; the history keeps the step. */
export function advance(
  record: SubmissionRecord,
  status: SubmissionStatus,
  at: string,
  changes: Partial<Omit<SubmissionRecord, "id" | "status" | "history" | "updated_at">> = {},
): SubmissionRecord {
  return { ...record, ...changes, status, updated_at: at, history: [...record.history, { status, at }] };
}

/** The public view: every field but the contact email and a failure's detail, in a stable order. */
export function submissionView(record: SubmissionRecord): SubmissionView {
  const { id, contact_email: _hidden, ...rest } = record;
  const failure = record.failure && { code: record.failure.code, reason: record.failure.reason };
  return { submission_id: id, ...rest, failure };
}

const AxisLevel = z.int().min(0).max(5);

/** One scored submission on the leaderboard, as stored (without its rank). */
export const BoardRowSchema = z.object({
  submission_id: z.int().min(1),
  runtime_name: z.string(),
  vendor: z.string(),
  url: z.string(),
  total: z.int().min(0).max(45),
  groups: ScoresSchema.shape.groups,
  axes: z.object(
    Object.fromEntries(AXIS_IDS.map((id) => [id, AxisLevel])) as Record<AxisId, typeof AxisLevel>,
  ),
  reg_fit: z.int().min(1).max(3),
  scorer: ScoresSchema.shape.scorer,
  rubric_version: z.string(),
  scored_at: z.iso.datetime(),
});
export type BoardRow = z.infer<typeof BoardRowSchema>;

export const LeaderboardEntrySchema = z.object({ rank: z.int().min(1), ...BoardRowSchema.shape });
export type LeaderboardEntry = z.infer<typeof LeaderboardEntrySchema>;

export const LeaderboardQuerySchema = z.object({
  limit: z.int().min(1).max(100).default(25).describe("how many entries, best first"),
});

/** The leaderboard row of a scored record, or null when it is not scored. */
export function boardRowOf(record: SubmissionRecord): BoardRow | null {
  const { scores, scored_at } = record;
  if (record.status !== "scored" || scores === null || scored_at === null) return null;
  const axes = {} as Record<AxisId, number>;
  for (const id of AXIS_IDS) axes[id] = scores.axes[id].score;
  return {
    submission_id: record.id,
    runtime_name: record.runtime_name,
    vendor: record.vendor,
    url: record.url,
    total: scores.total,
    groups: scores.groups,
    axes,
    reg_fit: scores.reg_fit.score,
    scorer: scores.scorer,
    rubric_version: scores.rubric_version,
    scored_at,
  };
}

/** Best first: total, then REG FIT, then the earlier scoring, then the lower id; never 0 for two rows. */
export function compareBoardRows(a: BoardRow, b: BoardRow): number {
  return (
    b.total - a.total ||
    b.reg_fit - a.reg_fit ||
    (a.scored_at < b.scored_at ? -1 : a.scored_at > b.scored_at ? 1 : 0) ||
    a.submission_id - b.submission_id
  );
}

/** The first `limit` rows of an already sorted board, ranked 1, 2, 3... (ties are broken, not shared). */
export function rankBoard(sorted: readonly BoardRow[], limit: number): LeaderboardEntry[] {
  return sorted.slice(0, limit).map((row, i) => ({ rank: i + 1, ...row }));
}

/** The place `row` takes on a board of `rows` (its own earlier row, if any, left out): 1 is the best. */
export function rankOnBoard(rows: readonly BoardRow[], row: BoardRow): number {
  return (
    1 +
    rows.filter((other) => other.submission_id !== row.submission_id && compareBoardRows(other, row) < 0)
      .length
  );
}

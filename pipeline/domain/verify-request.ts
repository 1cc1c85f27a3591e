import { z } from "zod";

// The pre-send verification playground: what an agent posts before sending a message, and what it gets back.
// Lengths here count UTF-16 units like every zod `.min()/.max()`; the HTTP validation layer counts code
// points itself, as FastAPI does.

/** True for a time zone name that Intl knows: IANA names, their aliases, "UTC" and "Etc/*". */
export function isTimeZoneName(name: string): boolean {
  // Newer engines also accept offsets such as "+01:00"; the contract asks for a name.
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * A field the specification declares `Optional[X] = None`: null is the same as leaving it out, and both
 * give `fallback`, so code past validation never sees null.
 */
function noneMeansDefault<T extends z.ZodType>(schema: T, fallback: () => z.output<T>) {
  return schema
    .nullable()
    .default(null)
    .transform((value) => value ?? fallback());
}

export const VerifyOptionsSchema = z.object({
  weekend_block: z
    .boolean()
    .default(false)
    .describe("Fail when it is Saturday or Sunday in `timezone` at the time of the check"),
  timezone: z
    .string()
    .refine(isTimeZoneName, {
      error: (issue) =>
        `Unknown time zone '${String(issue.input)}'; expected an IANA name such as 'Europe/Berlin' or 'UTC'`,
    })
    .default("UTC")
    .describe("IANA time zone of the recipient, used by the send-window check"),
  // Each term is bounded too: 200 unbounded terms would let one request build a matcher of a
  // megabyte of text and stall the server.
  redlist: noneMeansDefault(z.array(z.string().max(200)).max(200), () => []).describe(
    "Plain-text terms that must not appear in subject or body unless in the recipient address",
  ),
  llm_check: z.boolean().default(true).describe("Ask the language model for the semantic review"),
});
export type VerifyOptions = z.infer<typeof VerifyOptionsSchema>;

export const VerifyRequestSchema = z.object({
  subject: z.string().min(1).max(500),
  body: z.string().min(1).max(10_000),
  recipient: z.string().min(3).max(320).describe("The recipient's address, e.g. jane@example.com"),
  campaign: z.string().max(120).default("").describe("Campaign name; a campaign message needs an opt-out"),
  options: noneMeansDefault(VerifyOptionsSchema, () => VerifyOptionsSchema.parse({})),
});
/** A request after validation: every default filled in. */
export type VerifyRequest = z.infer<typeof VerifyRequestSchema>;
/** A request as a client may write it: defaults optional. */
export type VerifyRequestInput = z.input<typeof VerifyRequestSchema>;

export const VERDICTS = ["allow", "warn", "block"] as const;
export const VerdictSchema = z.enum(VERDICTS);
export type Verdict = z.infer<typeof VerdictSchema>;

export const CHECK_STATUSES = ["pass", "warn", "fail", "skipped"] as const;
export const CheckStatusSchema = z.enum(CHECK_STATUSES);
export type CheckStatus = z.infer<typeof CheckStatusSchema>;

export const SEVERITIES = ["info", "low", "medium", "high", "critical"] as const;
export const SeveritySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof SeveritySchema>;

export const MESSAGE_FIELDS = ["subject", "body", "recipient", "campaign"] as const;
export const MessageFieldSchema = z.enum(MESSAGE_FIELDS);
export type MessageField = z.infer<typeof MessageFieldSchema>;

/** A span of one request field. Offsets count code points (see `metadata.offset_unit`), end exclusive. */
export const SpanSchema = z.object({
  field: MessageFieldSchema,
  start: z.int().min(0),
  end: z.int().min(0),
  text: z.string().describe("The spanned text; secrets and card numbers are masked"),
});
export type Span = z.infer<typeof SpanSchema>;

export const CheckResultSchema = z.object({
  id: z.string().describe("Stable identifier, e.g. `placeholders`"),
  name: z.string(),
  status: CheckStatusSchema,
  severity: SeveritySchema,
  message: z.string().describe("What was found and what to do about it"),
  evidence: z.array(SpanSchema),
});
export type CheckResult = z.infer<typeof CheckResultSchema>;

export const SEMANTIC_KINDS = [
  "unsupported_claim",
  "misleading_subject",
  "fake_relationship",
  "pressure",
  "instruction_leak",
] as const;
export const SemanticKindSchema = z.enum(SEMANTIC_KINDS);
export type SemanticKind = z.infer<typeof SemanticKindSchema>;

export const SemanticFindingSchema = z.object({
  kind: SemanticKindSchema,
  message: z.string(),
  quote: z.string().optional().describe("Words of the message, kept only when they occur there verbatim"),
  evidence: SpanSchema.optional(),
});
export type SemanticFinding = z.infer<typeof SemanticFindingSchema>;

export const SEMANTIC_STATUSES = ["pass", "warn", "fail", "skipped", "error"] as const;
export const SemanticStatusSchema = z.enum(SEMANTIC_STATUSES);
export type SemanticStatus = z.infer<typeof SemanticStatusSchema>;

/**
 * Why a semantic review failed, for programs: the model could not be reached or answered with an
 * error, took too long, answered with something unusable, or the review itself broke. What exactly
 * happened goes to the server's log, never into the answer.
 */
export const SEMANTIC_ERROR_CODES = [
  "model_unavailable",
  "model_timeout",
  "model_answer_invalid",
  "review_failed",
] as const;
export const SemanticErrorCodeSchema = z.enum(SEMANTIC_ERROR_CODES);
export type SemanticErrorCode = z.infer<typeof SemanticErrorCodeSchema>;

export const SemanticResultSchema = z.object({
  status: SemanticStatusSchema,
  code: SemanticErrorCodeSchema.optional().describe(
    "Present when `status` is `error`: why the review failed",
  ),
  model: z.string().optional(),
  reason: z.string(),
  findings: z.array(SemanticFindingSchema),
});
export type SemanticResult = z.infer<typeof SemanticResultSchema>;

export const VerifyMetadataSchema = z.object({
  checker_version: z.string(),
  timezone: z.string(),
  local_time: z.string().describe("ISO 8601 local time with offset, e.g. 2026-11-20T23:30:00-05:00"),
  weekday: z.string().describe("English weekday name in `timezone`, e.g. Friday"),
  offset_unit: z.literal("code_point"),
});
export type VerifyMetadata = z.infer<typeof VerifyMetadataSchema>;

export const VerifyResultSchema = z.object({
  verdict: VerdictSchema,
  risk: z.number().min(0).max(1),
  summary: z.string().refine((value) => !/[\r\n]/.test(value), "The summary is one line"),
  checks: z.array(CheckResultSchema),
  semantic: SemanticResultSchema,
  metadata: VerifyMetadataSchema,
});
export type VerifyResult = z.infer<typeof VerifyResultSchema>;

import type { z } from "zod";
import {
  HealthSchema,
  KeyIssuedSchema,
  KeyUsageSchema,
  LeaderboardSchema,
  OpenApiDocumentSchema,
  PaperListItemSchema,
  PapersListSchema,
  SubmissionAcceptedSchema,
} from "../../pipeline/domain/api-answers.ts";
import { CitationsSchema } from "../../pipeline/domain/citations.ts";
import { JsonFeedSchema } from "../../pipeline/domain/feeds.ts";
import {
  HttpErrorSchema,
  HttpValidationErrorSchema,
  ValidationErrorSchema,
} from "../../pipeline/domain/http-errors.ts";
import { KeyIssueRequestSchema } from "../../pipeline/domain/key-request.ts";
import { PickSchema } from "../../pipeline/domain/pick.ts";
import { RankerCardSchema } from "../../pipeline/domain/ranker-card.ts";
import { RubricSchema } from "../../pipeline/domain/rubric.ts";
import { ScoresSchema } from "../../pipeline/domain/score.ts";
import { ScreenedDaySchema } from "../../pipeline/domain/screened.ts";
import {
  PaperAnswerSchema,
  PapersAnswerSchema,
  ScreenedListItemSchema,
  ScreenedPaperAnswerSchema,
  ScreenedPapersListSchema,
} from "../../pipeline/domain/screened-answers.ts";
import { DailySnapshotSchema, RecentSchema, StatsSchema } from "../../pipeline/domain/snapshot.ts";
import {
  LeaderboardEntrySchema,
  SubmissionViewSchema,
  SubstrateSubmissionSchema,
} from "../../pipeline/domain/submission.ts";
import { TierLimitsSchema } from "../../pipeline/domain/tiers.ts";
import { VerifyRequestSchema, VerifyResultSchema } from "../../pipeline/domain/verify-request.ts";
import {
  DeliveryAttemptSchema,
  DeliveryListSchema,
  DeliveryQueuedSchema,
  WebhookCreateSchema,
  WebhookEndpointSchema,
  WebhookListSchema,
  WebhookSecretSchema,
} from "../../pipeline/domain/webhook.ts";

// The names clients see for the schemas (components.schemas). A body schema missing here still gets a
// component, named after its operation; a schema nested in others is worth a name when it recurs.

/** Answers, converted as zod's output. The error names are FastAPI's. */
export const ANSWER_SCHEMA_NAMES: Readonly<Record<string, z.ZodType>> = {
  HTTPError: HttpErrorSchema,
  HTTPValidationError: HttpValidationErrorSchema,
  ValidationError: ValidationErrorSchema,
  Health: HealthSchema,
  DailySnapshot: DailySnapshotSchema,
  Recent: RecentSchema,
  Stats: StatsSchema,
  Rubric: RubricSchema,
  RankerCard: RankerCardSchema,
  Pick: PickSchema,
  JsonFeed: JsonFeedSchema,
  Scores: ScoresSchema,
  Citations: CitationsSchema,
  TierLimits: TierLimitsSchema,
  KeyIssued: KeyIssuedSchema,
  KeyUsage: KeyUsageSchema,
  PapersList: PapersListSchema,
  PaperListItem: PaperListItemSchema,
  PapersAnswer: PapersAnswerSchema,
  ScreenedPapersList: ScreenedPapersListSchema,
  ScreenedListItem: ScreenedListItemSchema,
  PaperAnswer: PaperAnswerSchema,
  ScreenedPaperAnswer: ScreenedPaperAnswerSchema,
  ScreenedDay: ScreenedDaySchema,
  VerifyResult: VerifyResultSchema,
  SubmissionAccepted: SubmissionAcceptedSchema,
  SubmissionView: SubmissionViewSchema,
  Leaderboard: LeaderboardSchema,
  LeaderboardEntry: LeaderboardEntrySchema,
  OpenApiDocument: OpenApiDocumentSchema,
  WebhookEndpoint: WebhookEndpointSchema,
  WebhookWithSecret: WebhookSecretSchema,
  WebhookList: WebhookListSchema,
  DeliveryAttempt: DeliveryAttemptSchema,
  DeliveryList: DeliveryListSchema,
  DeliveryQueued: DeliveryQueuedSchema,
};

/** Request bodies, converted as zod's input: a field with a default may be left out. */
export const REQUEST_SCHEMA_NAMES: Readonly<Record<string, z.ZodType>> = {
  KeyIssueRequest: KeyIssueRequestSchema,
  VerifyRequest: VerifyRequestSchema,
  SubstrateSubmission: SubstrateSubmissionSchema,
  WebhookCreate: WebhookCreateSchema,
};

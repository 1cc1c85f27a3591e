import { z } from "zod";
import { SkippedRowSchema } from "./candidate.ts";
import { CircuitStateSchema } from "./circuit.ts";
import { RelevanceSchema } from "./relevance-model.ts";
import { ScorerNameSchema, ScoresSchema } from "./score.ts";
import { SearchIndexRunSchema } from "./search-index.ts";
import { SelectionPolicySchema } from "./selection.ts";
import { DayCountsSchema } from "./snapshot.ts";

/** One screened candidate in the run record: its scores and why it was or was not kept. */
export const ScreenedSchema = z.object({
  id: z.string(),
  title: z.string(),
  kept: z.boolean(),
  rank: z.int().nullable(),
  reason: z.string(),
  scores: ScoresSchema,
  relevance: RelevanceSchema.optional().describe("the relevance model's heads; absent when the rules ranked"),
  rank_score: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe("what the candidates were ranked by (RANK_SCORE_RULE)"),
});
export type Screened = z.infer<typeof ScreenedSchema>;

export const UpstreamCountsSchema = z.object({
  requests: z.int().min(0).describe("requests sent, retries included"),
  retries: z.int().min(0),
  failures: z
    .int()
    .min(0)
    .describe("calls that failed after their last retry, or at once on an open circuit"),
  // Present only for an upstream whose circuit opened during the run.
  circuit: CircuitStateSchema.optional().describe("the upstream's circuit breaker at the end of the run"),
  circuit_opened: z.int().min(0).optional().describe("how often its circuit opened"),
  short_circuited: z
    .int()
    .min(0)
    .optional()
    .describe("calls failed at once, without a request, while it was open"),
});
export type UpstreamCounts = z.infer<typeof UpstreamCountsSchema>;

/** Every outbound request of the run, in total and per upstream (arxiv, semantic_scholar, openalex, llm). */
export const HttpCountsSchema = UpstreamCountsSchema.extend({
  politeness_wait_ms: z.int().min(0).describe("time spent waiting to keep an upstream's request spacing"),
  backoff_wait_ms: z.int().min(0).describe("time spent waiting before retries"),
  by_upstream: z.record(z.string(), UpstreamCountsSchema),
});
export type HttpCounts = z.infer<typeof HttpCountsSchema>;

export const ScorerFallbackSchema = z.object({ id: z.string(), reason: z.string() });

/** Which scorer the run asked for and, for the language-model judge, what it cost. */
export const ScoringRunSchema = z.object({
  scorer: ScorerNameSchema.describe("the scorer asked for; each score names the scorer that produced it"),
  model: z.string().nullable(),
  llm_scored: z.int().min(0).describe("candidates scored by the model, cached answers included"),
  cache_hits: z.int().min(0),
  fallbacks: z
    .array(ScorerFallbackSchema)
    .describe("candidates the rules scorer scored because the model failed"),
  usage: z.object({
    requests: z.int().min(0),
    prompt_tokens: z.int().min(0),
    completion_tokens: z.int().min(0),
    cost_usd: z.number().min(0).nullable().describe("null unless token prices are configured"),
  }),
});
export type ScoringRun = z.infer<typeof ScoringRunSchema>;

/** What the enrich stage did: skipped (and why), or how many picks each citation index answered for. */
export const CitationRunSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("skipped"), reason: z.string() }),
  z.object({
    status: z.literal("done"),
    papers: z.int().min(0).describe("today's picks plus the picks of the last 30 days"),
    found_semantic_scholar: z.int().min(0),
    found_openalex: z.int().min(0),
    missing: z.int().min(0),
    refreshed_days: z.array(z.string()).describe("earlier days whose snapshots got fresh figures"),
    problems: z.array(z.string()).describe("upstream failures, in words"),
  }),
]);
export type CitationRun = z.infer<typeof CitationRunSchema>;

/** `data/runs/{date}.json`: everything a run saw and decided, for the operator. */
export const RunRecordSchema = z.object({
  date: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  backfilled: z
    .literal(true)
    .optional()
    .describe("a past announcement day curated later by `picks backfill`, as it would have been on that day"),
  source: z.string(),
  sample: z.boolean(),
  rubric_version: z.string(),
  selection: SelectionPolicySchema,
  counts: DayCountsSchema,
  skipped: z.array(SkippedRowSchema),
  candidates: z.array(ScreenedSchema).describe("every screened candidate, in ranking order"),
  files: z.array(z.string()).describe("the snapshot files this run wrote"),
  source_notes: z.array(z.string()).describe("what a live source did: requests, ignored entries"),
  scoring: ScoringRunSchema,
  ranker: z
    .object({ name: z.enum(["model", "rules"]), model_version: z.string().nullable() })
    .optional()
    .describe("what ordered the candidates: the relevance model (and its version) or the rubric's total"),
  citations: CitationRunSchema,
  http: HttpCountsSchema,
  search_index: SearchIndexRunSchema.optional().describe(
    "the archive's search index this run wrote (public/v1/search-index.json) and its size",
  ),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

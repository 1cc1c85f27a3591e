import { z } from "zod";
import { SkippedRowSchema } from "./candidate.ts";
import { ScoresSchema } from "./score.ts";
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
});
export type Screened = z.infer<typeof ScreenedSchema>;

/** `data/runs/{date}.json`: everything a run saw and decided, for the operator. */
export const RunRecordSchema = z.object({
  date: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  source: z.string(),
  sample: z.boolean(),
  rubric_version: z.string(),
  selection: SelectionPolicySchema,
  counts: DayCountsSchema,
  skipped: z.array(SkippedRowSchema),
  candidates: z.array(ScreenedSchema).describe("every screened candidate, in ranking order"),
  files: z.array(z.string()).describe("the snapshot files this run wrote"),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

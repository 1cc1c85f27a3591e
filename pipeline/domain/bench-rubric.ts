import { z } from "zod";
import type { EntryProblem } from "./bench-watchlist.ts";
import { termProblems } from "./bench-watchlist.ts";
import { AXIS_IDS, type AxisId, AxisIdSchema } from "./score.ts";
import { DEFAULT_SELECTION } from "./selection.ts";

export const FIRM_RUBRIC_MAX_SIGNALS = 50;
const weight = z.number().min(0).max(3);

/** A firm's own priorities over the public rubric's axes. */
export const FirmSignalSchema = z.object({
  axis: AxisIdSchema.describe("the axis the signal adds to"),
  terms: z
    .array(z.string().min(1).max(120))
    .min(1)
    .max(20)
    .describe("any of these in title or abstract fires it"),
  weight: z.number().min(0).max(10).describe("points added to the firm total when the signal fires"),
});
export type FirmSignal = z.infer<typeof FirmSignalSchema>;

/** `PUT /v1/bench/rubric`: everything optional; absent weights are 1, absent thresholds the public ones. */
export const FirmRubricRequestSchema = z.object({
  weights: z
    .object({
      A1: weight.optional(),
      A2: weight.optional(),
      A3: weight.optional(),
      A4: weight.optional(),
      A5: weight.optional(),
      A6: weight.optional(),
      A7: weight.optional(),
      A8: weight.optional(),
      A9: weight.optional(),
    })
    .optional()
    .describe("a multiplier 0..3 per axis; the firm total is the sum of weight x axis score"),
  signals: z.array(FirmSignalSchema).max(FIRM_RUBRIC_MAX_SIGNALS).optional(),
  min_total: z.number().min(0).max(200).optional().describe("lowest firm total a firm pick may have"),
  min_reg_fit: z.int().min(1).max(3).optional(),
  max_picks: z.int().min(0).max(50).optional(),
});
export type FirmRubricRequest = z.infer<typeof FirmRubricRequestSchema>;

/** A stored rubric version: every field resolved, numbered from 1. */
export const FirmRubricSchema = z.object({
  version: z.int().min(1),
  created_at: z.string(),
  weights: z.object({
    A1: z.number(),
    A2: z.number(),
    A3: z.number(),
    A4: z.number(),
    A5: z.number(),
    A6: z.number(),
    A7: z.number(),
    A8: z.number(),
    A9: z.number(),
  }),
  signals: z.array(FirmSignalSchema),
  min_total: z.number(),
  min_reg_fit: z.int(),
  max_picks: z.int(),
});
export type FirmRubric = z.infer<typeof FirmRubricSchema>;

/** How many versions a firm keeps; older ones go, except those a stored firm day names. */
export const FIRM_RUBRIC_VERSIONS_KEPT = 100;
/** Versions per page of `GET /v1/bench/rubric`. */
export const FIRM_RUBRIC_PAGE = 20;

/**
 * `GET /v1/bench/rubric`: the current version (null before the first PUT) and a page of the kept
 * versions, newest first; `next_cursor` continues it.
 */
export const FirmRubricHistorySchema = z.object({
  current: FirmRubricSchema.nullable(),
  versions: z
    .array(FirmRubricSchema)
    .describe(
      `at most ${FIRM_RUBRIC_PAGE} kept versions, newest first, older than the cursor if one was given`,
    ),
  next_cursor: z
    .string()
    .nullable()
    .describe("pass as `cursor` for the next page of older versions; null on the last page"),
});
export type FirmRubricHistory = z.infer<typeof FirmRubricHistorySchema>;

const UNIT_WEIGHTS = Object.fromEntries(AXIS_IDS.map((axis) => [axis, 1])) as Record<AxisId, number>;

/** What a firm without a rubric of its own sees: the public axes at weight 1 and the public thresholds. */
export const DEFAULT_FIRM_RUBRIC: FirmRubric = {
  version: 0,
  created_at: "1970-01-01T00:00:00.000Z",
  weights: UNIT_WEIGHTS,
  signals: [],
  min_total: DEFAULT_SELECTION.min_total,
  min_reg_fit: DEFAULT_SELECTION.min_reg_fit,
  max_picks: DEFAULT_SELECTION.max_picks,
};

/** The next stored version of a request, or the signal terms the matcher cannot use. */
export function resolveFirmRubric(
  request: FirmRubricRequest,
  version: number,
  at: string,
): { ok: true; value: FirmRubric } | { ok: false; problems: EntryProblem[] } {
  const signals = request.signals ?? [];
  const problems = signals.flatMap((signal, i) => termProblems(signal.terms, ["signals", i, "terms"]));
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      version,
      created_at: at,
      weights: { ...UNIT_WEIGHTS, ...request.weights },
      signals,
      min_total: request.min_total ?? DEFAULT_FIRM_RUBRIC.min_total,
      min_reg_fit: request.min_reg_fit ?? DEFAULT_FIRM_RUBRIC.min_reg_fit,
      max_picks: request.max_picks ?? DEFAULT_FIRM_RUBRIC.max_picks,
    },
  };
}

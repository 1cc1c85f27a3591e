import { z } from "zod";
import { AXIS_GROUP, AXIS_IDS, AxisGroupSchema, AxisIdSchema } from "./score.ts";
import { parseTerm } from "./text-signals.ts";

const SIGNAL_ID = /^(?:A[1-9]|REG|FOCUS)\.[a-z0-9]+(?:[.-][a-z0-9]+)*$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const TermSchema = z
  .string()
  .min(1)
  .superRefine((term, ctx) => {
    const parsed = parseTerm(term);
    if ("problem" in parsed) ctx.addIssue({ code: "custom", message: parsed.problem });
  });

/** Something the scorer looks for: any of its terms counts, once per candidate, with its weight. */
export const SignalSchema = z.object({
  id: z.string().regex(SIGNAL_ID).describe("axis or REG, a dot, then a slug, e.g. A9.code-link"),
  label: z.string().min(1).max(60).describe("a short noun phrase used in rationales"),
  description: z.string().min(1),
  weight: z
    .int()
    .min(-5)
    .max(5)
    .refine((weight) => weight !== 0, "a weight of 0 would never change a score"),
  terms: z.array(TermSchema).min(1).describe("words or phrases, matched whole, case- and accent-insensitive"),
});
export type Signal = z.infer<typeof SignalSchema>;

const LevelThresholdsSchema = z
  .array(z.int().min(1))
  .length(5)
  .refine((t) => t.every((value, i) => i === 0 || value > (t[i - 1] as number)), "thresholds must ascend")
  .describe("points needed for levels 1..5");

export const AxisLevelSchema = z.object({ score: z.int().min(0).max(5), meaning: z.string().min(1) });

export const RubricAxisSchema = z.object({
  id: AxisIdSchema,
  group: AxisGroupSchema,
  name: z.string().min(1),
  gist: z.string().min(1),
  definition: z.string().min(1),
  levels: z
    .array(AxisLevelSchema)
    .length(6)
    .refine((levels) => levels.every((level, i) => level.score === i), "levels must be 0..5 in order"),
  level_thresholds: LevelThresholdsSchema.optional(),
  signals: z.array(SignalSchema).min(1),
});
export type RubricAxis = z.infer<typeof RubricAxisSchema>;

export const RegFitCriterionSchema = z.object({
  id: z.string().regex(SLUG),
  name: z.string().min(1),
  framework: z.string().regex(SLUG),
  question: z.string().min(1),
  required: z.enum(["always", "when-personal-data"]),
  min_points: z.int().min(1),
  remediation: z.string().min(1).describe("what a reviewer would ask for when the criterion is not shown"),
  signals: z.array(SignalSchema).min(1),
});
export type RegFitCriterion = z.infer<typeof RegFitCriterionSchema>;

export const RegFitRubricSchema = z.object({
  name: z.string().min(1),
  question: z.string().min(1),
  frameworks: z
    .array(z.object({ id: z.string().regex(SLUG), name: z.string().min(1), looks_for: z.string().min(1) }))
    .min(1),
  levels: z
    .array(z.object({ score: z.int().min(1).max(3), name: z.string().min(1), meaning: z.string().min(1) }))
    .length(3)
    .refine((levels) => levels.every((level, i) => level.score === i + 1), "levels must be 1..3 in order"),
  decision: z.object({
    text: z.string().min(1),
    blocking: z.array(z.string().regex(SLUG)).describe("criteria whose absence alone gives 1"),
    max_missing_for_2: z.int().min(1).describe("more required criteria missing than this gives 1"),
  }),
  criteria: z.array(RegFitCriterionSchema).min(1),
  personal_data: z.object({
    description: z.string().min(1),
    signals: z.array(SignalSchema).min(1),
  }),
});
export type RegFitRubric = z.infer<typeof RegFitRubricSchema>;

export const FocusLevelSchema = z.object({
  name: z.string().regex(SLUG),
  min_points: z.number().describe("focus points needed; the lowest level also takes everything below it"),
  factor: z.number().min(0).max(1).describe("what the gated groups' points are multiplied by"),
});

export const FocusRubricSchema = z.object({
  name: z.string().min(1),
  question: z.string().min(1),
  method: z.string().min(1),
  signals: z.array(SignalSchema).min(1),
  primary_category: z
    .record(z.string().regex(/^[a-z-]+(?:\.[A-Za-z-]+)?$/), z.int().min(-5).max(5))
    .describe("points added for the paper's primary (first listed) arXiv category"),
  levels: z
    .array(FocusLevelSchema)
    .min(1)
    .refine(
      (levels) => new Set(levels.map((level) => level.name)).size === levels.length,
      "level names must differ",
    ),
  groups: z.array(AxisGroupSchema).describe("the axis groups whose points the focus factor scales"),
});
export type FocusRubric = z.infer<typeof FocusRubricSchema>;

/** The published rubric (DESIGN §3): nine axes scored 0..5 and REG FIT scored 1..3, with their signals. */
export const RubricSchema = z
  .object({
    version: z.string().regex(/^\d{4}\.\d{1,2}\.\d+$/),
    title: z.string().min(1),
    summary: z.string().min(1),
    scoring: z.object({
      method: z.string().min(1),
      level_thresholds: LevelThresholdsSchema,
      emphasis: z
        .object({
          title_points: z.int().min(0).max(3).describe("added when a positive signal fires in the title"),
          repeat_min_count: z.int().min(2).describe("matches of a signal's terms that count as repeated"),
          repeat_points: z.int().min(0).max(3).describe("added when a positive signal is repeated"),
        })
        .describe("axis signals central to a paper count more than ones mentioned once in passing"),
      length_norm: z
        .object({
          reference_tokens: z.int().min(1).describe("a text of this many words keeps its points as they are"),
          exponent: z.number().min(0).max(1).describe("0 turns the adjustment off, 1 scores density"),
          max_factor: z.number().min(1).max(4).describe("the most a short text's points are multiplied by"),
          groups: z.array(AxisGroupSchema).describe("the axis groups whose points are adjusted"),
        })
        .describe("points are multiplied by (reference_tokens / tokens) ^ exponent, at most max_factor"),
      limits: z.string().min(1),
    }),
    axes: z.array(RubricAxisSchema).length(AXIS_IDS.length),
    focus: FocusRubricSchema.optional().describe("absent: every paper counts as in focus"),
    reg_fit: RegFitRubricSchema,
  })
  .superRefine((rubric, ctx) => {
    const seen = new Set<string>();
    const checkSignals = (signals: readonly Signal[], prefix: string, path: (string | number)[]) => {
      signals.forEach((signal, i) => {
        if (!signal.id.startsWith(`${prefix}.`)) {
          ctx.addIssue({
            code: "custom",
            path: [...path, i, "id"],
            message: `Expected an id starting with ${prefix}.`,
          });
        }
        if (seen.has(signal.id)) {
          ctx.addIssue({
            code: "custom",
            path: [...path, i, "id"],
            message: `Duplicate signal id ${signal.id}`,
          });
        }
        seen.add(signal.id);
      });
    };
    rubric.axes.forEach((axis, i) => {
      if (axis.id !== AXIS_IDS[i]) {
        ctx.addIssue({
          code: "custom",
          path: ["axes", i, "id"],
          message: `Expected ${AXIS_IDS[i]} at position ${i}`,
        });
      }
      if (axis.group !== AXIS_GROUP[axis.id]) {
        ctx.addIssue({
          code: "custom",
          path: ["axes", i, "group"],
          message: `Expected ${AXIS_GROUP[axis.id]}`,
        });
      }
      checkSignals(axis.signals, axis.id, ["axes", i, "signals"]);
    });
    const frameworks = new Set(rubric.reg_fit.frameworks.map((framework) => framework.id));
    const criteria = new Set<string>();
    rubric.reg_fit.criteria.forEach((criterion, i) => {
      const path = ["reg_fit", "criteria", i];
      if (!frameworks.has(criterion.framework)) {
        ctx.addIssue({
          code: "custom",
          path: [...path, "framework"],
          message: "Expected a listed framework id",
        });
      }
      if (!criterion.signals.some((signal) => signal.weight > 0)) {
        ctx.addIssue({
          code: "custom",
          path: [...path, "signals"],
          message: "A criterion needs a positive signal",
        });
      }
      criteria.add(criterion.id);
      checkSignals(criterion.signals, "REG", [...path, "signals"]);
    });
    for (const id of rubric.reg_fit.decision.blocking) {
      if (!criteria.has(id)) {
        ctx.addIssue({
          code: "custom",
          path: ["reg_fit", "decision", "blocking"],
          message: `Unknown criterion ${id}`,
        });
      }
    }
    checkSignals(rubric.reg_fit.personal_data.signals, "REG", ["reg_fit", "personal_data", "signals"]);
    if (rubric.focus) checkSignals(rubric.focus.signals, "FOCUS", ["focus", "signals"]);
  });
export type Rubric = z.infer<typeof RubricSchema>;

/** Validates a rubric document (e.g. the parsed data/rubric.json); throws with every problem listed. */
export function parseRubric(json: unknown): Rubric {
  const result = RubricSchema.safeParse(json);
  if (!result.success) throw new Error(`Expected a valid rubric:\n${z.prettifyError(result.error)}`);
  return result.data;
}

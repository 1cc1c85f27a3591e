import { z } from "zod";
import {
  RegFitCriterionSchema,
  RegFitRubricSchema,
  type Rubric,
  RubricAxisSchema,
  RubricSchema,
  SignalSchema,
} from "../../pipeline/domain/rubric.ts";
import { AXIS_IDS } from "../../pipeline/domain/score.ts";
import type { McpSnapshots } from "./fresh-snapshots.ts";
import { readPublished } from "./published-file.ts";
import { answer, type ReadOnlyTool } from "./read-only-tool.ts";

export const AxesInputSchema = z.strictObject({
  axis: z
    .enum([...AXIS_IDS, "REG"])
    .optional()
    .describe("one axis (or REG for REG FIT) in full, with every signal's terms; leave out for the overview"),
});

// The whole rubric is about 16,000 tokens, mostly the words each signal matches. The overview keeps
// what a reader needs to interpret a score (definitions, levels, signal names and weights) and leaves
// the term lists to the one-axis answer.
const SignalViewSchema = SignalSchema.partial({ description: true, terms: true });

export const AxesOutputSchema = z.object({
  detail: z.string().describe("`overview`, or the axis shown in full"),
  version: RubricSchema.shape.version,
  title: RubricSchema.shape.title,
  summary: RubricSchema.shape.summary,
  scoring: RubricSchema.shape.scoring,
  axes: z.array(RubricAxisSchema.extend({ signals: z.array(SignalViewSchema) })),
  reg_fit: RegFitRubricSchema.extend({
    criteria: z.array(RegFitCriterionSchema.partial({ signals: true })),
    personal_data: RegFitRubricSchema.shape.personal_data.partial({ signals: true }),
  }).optional(),
});
type AxesOutput = z.infer<typeof AxesOutputSchema>;

function view(rubric: Rubric, axis: (typeof AXIS_IDS)[number] | "REG" | undefined): AxesOutput {
  const head = {
    version: rubric.version,
    title: rubric.title,
    summary: rubric.summary,
    scoring: rubric.scoring,
  };
  if (axis === "REG") return { detail: "REG", ...head, axes: [], reg_fit: rubric.reg_fit };
  if (axis !== undefined) {
    return { detail: axis, ...head, axes: rubric.axes.filter((entry) => entry.id === axis) };
  }
  const { reg_fit: regFit } = rubric;
  return {
    detail: "overview",
    ...head,
    axes: rubric.axes.map((entry) => ({
      ...entry,
      signals: entry.signals.map(({ id, label, weight }) => ({ id, label, weight })),
    })),
    reg_fit: {
      ...regFit,
      criteria: regFit.criteria.map(({ signals: _signals, ...criterion }) => criterion),
      personal_data: { description: regFit.personal_data.description },
    },
  };
}

export function axesTool(
  snapshots: McpSnapshots,
): ReadOnlyTool<typeof AxesInputSchema, typeof AxesOutputSchema> {
  return {
    name: "labs_axes",
    title: "Scoring rubric",
    description:
      "The published rubric behind every score: nine axes A1..A9 (0..5 each, total 0..45) in three groups, " +
      "what each level means, the signals the scorer looks for, and REG FIT (1..3). Pass `axis` for one " +
      "axis in full.",
    input: AxesInputSchema,
    output: AxesOutputSchema,
    hints: {
      axis: (value) =>
        `unknown axis \`${String(value)}\`; labs_axes takes A1..A9, REG for REG FIT, ` +
        "or no axis for the overview",
    },
    async run(args) {
      const rubric = await readPublished(snapshots, "axes", RubricSchema);
      return rubric.ok ? answer(view(rubric.value, args.axis)) : rubric;
    },
  };
}

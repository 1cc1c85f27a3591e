import { z } from "zod";

export const AXIS_IDS = ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9"] as const;
export const AxisIdSchema = z.enum(AXIS_IDS);
export type AxisId = z.infer<typeof AxisIdSchema>;

export const AXIS_GROUPS = ["substrate", "governance", "research"] as const;
export const AxisGroupSchema = z.enum(AXIS_GROUPS);
export type AxisGroup = z.infer<typeof AxisGroupSchema>;

/** Which group each axis belongs to (DESIGN §3). */
export const AXIS_GROUP: Record<AxisId, AxisGroup> = {
  A1: "substrate",
  A2: "substrate",
  A3: "substrate",
  A4: "governance",
  A5: "governance",
  A6: "governance",
  A7: "research",
  A8: "research",
  A9: "research",
};

/** One reason behind a score: the rubric signal that fired and the sentence it fired on. */
export const EvidenceSchema = z.object({
  signal: z.string(),
  text: z.string(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export const AxisScoreSchema = z.object({
  score: z.int().min(0).max(5),
  evidence: z.array(EvidenceSchema),
});
export type AxisScore = z.infer<typeof AxisScoreSchema>;

export const RegFitSchema = z.object({
  score: z.int().min(1).max(3),
  rationale: z.string(),
  evidence: z.array(EvidenceSchema),
});
export type RegFit = z.infer<typeof RegFitSchema>;

/** How squarely the paper is about the mission, and the factor its substrate and governance points got. */
export const FocusSchema = z.object({
  level: z.string().describe("the rubric's focus level, e.g. core, adjacent or off-mission"),
  points: z.number().describe("focus signals and the primary category's prior, summed"),
  factor: z.number().min(0).max(1).describe("what the gated groups' points were multiplied by"),
  evidence: z.array(EvidenceSchema),
});
export type Focus = z.infer<typeof FocusSchema>;

export const ScorerNameSchema = z.enum(["rules", "llm"]);
export type ScorerName = z.infer<typeof ScorerNameSchema>;

/** Every score a pick carries, with the scorer and rubric version that produced it. */
export const ScoresSchema = z.object({
  scorer: ScorerNameSchema,
  rubric_version: z.string(),
  axes: z.object({
    A1: AxisScoreSchema,
    A2: AxisScoreSchema,
    A3: AxisScoreSchema,
    A4: AxisScoreSchema,
    A5: AxisScoreSchema,
    A6: AxisScoreSchema,
    A7: AxisScoreSchema,
    A8: AxisScoreSchema,
    A9: AxisScoreSchema,
  }),
  groups: z.object({
    substrate: z.int().min(0).max(15),
    governance: z.int().min(0).max(15),
    research: z.int().min(0).max(15),
  }),
  total: z.int().min(0).max(45),
  reg_fit: RegFitSchema,
  focus: FocusSchema.optional().describe("absent in scores made before rubric 2026.11.2 and by the judge"),
});
export type Scores = z.infer<typeof ScoresSchema>;

/** Sums axis scores into group and overall totals. */
export function totals(axes: Record<AxisId, AxisScore>): Pick<Scores, "groups" | "total"> {
  const groups = { substrate: 0, governance: 0, research: 0 };
  for (const axis of AXIS_IDS) groups[AXIS_GROUP[axis]] += axes[axis].score;
  return { groups, total: groups.substrate + groups.governance + groups.research };
}

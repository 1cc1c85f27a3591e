// The language-model judge's answer: one JSON document per candidate, checked here before it becomes
// Scores. Pure: the schema is sent to the model as its response format and used to validate what comes back.

import { z } from "zod";
import type { Candidate } from "../domain/candidate.ts";
import {
  AXIS_IDS,
  type AxisId,
  type AxisScore,
  type Evidence,
  type Scores,
  totals,
} from "../domain/score.ts";

const EvidenceItemSchema = z.strictObject({
  signal: z.string().min(1).max(80).describe("the rubric signal or criterion this quote shows"),
  quote: z.string().min(1).max(400).describe("a verbatim sentence or phrase from the paper's text"),
});

const AxisAnswerSchema = z.strictObject({
  score: z.int().min(0).max(5),
  evidence: z.array(EvidenceItemSchema).max(3),
});

export const JudgeAnswerSchema = z.strictObject({
  axes: z.strictObject({
    A1: AxisAnswerSchema,
    A2: AxisAnswerSchema,
    A3: AxisAnswerSchema,
    A4: AxisAnswerSchema,
    A5: AxisAnswerSchema,
    A6: AxisAnswerSchema,
    A7: AxisAnswerSchema,
    A8: AxisAnswerSchema,
    A9: AxisAnswerSchema,
  }),
  reg_fit: z.strictObject({
    score: z.int().min(1).max(3),
    rationale: z.string().min(1).max(1000),
    evidence: z.array(EvidenceItemSchema).max(3),
  }),
});
export type JudgeAnswer = z.infer<typeof JudgeAnswerSchema>;

/** The response format sent with each request (OpenAI `json_schema`, strict). */
export const JUDGE_RESPONSE_FORMAT = {
  type: "json_schema",
  json_schema: {
    name: "rubric_scores",
    strict: true,
    schema: (({ $schema: _, ...schema }) => schema)(z.toJSONSchema(JudgeAnswerSchema)),
  },
} as const;

/** Why an answer is not usable, or the answer. */
export function readJudgeAnswer(content: string): JudgeAnswer | { problem: string } {
  // Some servers wrap the JSON in a Markdown fence despite the response format; the fence carries nothing.
  const unfenced = content
    .trim()
    .replace(/^```(?:json)?[ \t]*\n?/, "")
    .replace(/\n?```$/, "");
  let json: unknown;
  try {
    json = JSON.parse(unfenced);
  } catch (error) {
    return { problem: `the model's answer is not JSON (${(error as Error).message})` };
  }
  const parsed = JudgeAnswerSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return { problem: `the model's answer does not match the schema (${where}${issue?.message ?? "invalid"})` };
}

const folded = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/** Keeps only quotes that occur in the candidate's own text, so every piece of evidence can be checked. */
function grounded(items: JudgeAnswer["reg_fit"]["evidence"], text: string): Evidence[] {
  return items
    .filter((item) => text.includes(folded(item.quote)))
    .map((item) => ({ signal: `llm: ${item.signal.trim()}`, text: item.quote.replace(/\s+/g, " ").trim() }));
}

/**
 * The answer as Scores with scorer "llm": totals computed here (never trusted from the model) and
 * evidence quotes not found in the title, abstract or comment dropped.
 */
export function answerToScores(answer: JudgeAnswer, candidate: Candidate, rubricVersion: string): Scores {
  const text = folded([candidate.title, candidate.summary, candidate.comment ?? ""].join(" "));
  const axes = {} as Record<AxisId, AxisScore>;
  for (const id of AXIS_IDS) {
    axes[id] = { score: answer.axes[id].score, evidence: grounded(answer.axes[id].evidence, text) };
  }
  return {
    scorer: "llm",
    rubric_version: rubricVersion,
    axes,
    ...totals(axes),
    reg_fit: {
      score: answer.reg_fit.score,
      rationale: answer.reg_fit.rationale.replace(/\s+/g, " ").trim(),
      evidence: grounded(answer.reg_fit.evidence, text),
    },
  };
}

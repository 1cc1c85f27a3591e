// The language-model judge's answer: one JSON document per candidate, checked here before it becomes
// Scores. Pure: the schema is sent to the model as its response format, and the model client validates
// what comes back against it.

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
import { createQuoteFinder, type EvidenceRubric, signalShown } from "./judge-evidence.ts";

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

/** One axis or REG FIT as the model scored it, and what its quotes support. */
function capped(
  model: number,
  rules: number,
  items: JudgeAnswer["reg_fit"]["evidence"],
  find: (quote: string) => string | undefined,
  show: (quote: string) => string | undefined,
): { score: number; evidence: Evidence[] } {
  const evidence: Evidence[] = [];
  for (const item of items) {
    const text = find(item.quote);
    const signal = text === undefined ? undefined : show(text);
    if (text === undefined || signal === undefined) continue;
    // The same passage cited twice, or a quote inside another, is one piece of evidence.
    const lower = text.toLowerCase();
    if (evidence.some((known) => known.text.toLowerCase().includes(lower))) continue;
    const inside = evidence.findIndex((known) => lower.includes(known.text.toLowerCase()));
    if (inside >= 0) evidence.splice(inside, 1);
    evidence.push({ signal: `llm: ${signal}`, text });
  }
  return { score: Math.min(model, rules + evidence.length), evidence };
}

/**
 * The answer as Scores with scorer "llm", never above what its evidence supports. The text judged is
 * untrusted (an abstract, a submitted page) and may tell the model what to answer, so:
 *
 * - a quote counts only when it occurs in the title, abstract or comment (whitespace and case aside),
 *   has at least MIN_QUOTE_WORDS words, and shows a positive rubric signal of the axis it is cited for
 *   (REG FIT: of a REG FIT criterion), read as the rules scorer reads text;
 * - each axis gets the model's level, at most the rules scorer's level for that axis plus one per
 *   counted quote (distinct passages). A model that gives no checkable quote can agree with the rules
 *   or go below them, never above; each level more must be carried by its own quote from the text.
 *   REG FIT the same way, from the rules' REG FIT;
 * - what is published is built from counted quotes only, in the source's own words: the evidence, and
 *   a REG FIT rationale that quotes them. The model's rationale and signal names are not published.
 *
 * Totals are computed here, never taken from the model.
 */
export function answerToScores(
  answer: JudgeAnswer,
  candidate: Candidate,
  rules: Scores,
  rubric: EvidenceRubric,
): Scores {
  const find = createQuoteFinder(candidate);
  const axes = {} as Record<AxisId, AxisScore>;
  for (const id of AXIS_IDS) {
    const signals = rubric.axes.get(id) ?? new Map<number, string>();
    axes[id] = capped(answer.axes[id].score, rules.axes[id].score, answer.axes[id].evidence, find, (quote) =>
      signalShown(rubric, signals, quote),
    );
  }
  const regFit = capped(answer.reg_fit.score, rules.reg_fit.score, answer.reg_fit.evidence, find, (quote) =>
    signalShown(rubric, rubric.regFit, quote),
  );
  const score = Math.max(1, regFit.score);
  const level = rubric.regFitLevels[score - 1] ?? "";
  const cut =
    score < answer.reg_fit.score
      ? `; the model said ${answer.reg_fit.score}, more than the quotes found in the text support`
      : "";
  const quoted =
    regFit.evidence.length > 0
      ? ` Quoted from the text: ${regFit.evidence.map((item) => `"${item.text}"`).join("; ")}.`
      : " No quote the model gave is in the text and shows a REG FIT criterion.";
  return {
    scorer: "llm",
    rubric_version: rules.rubric_version,
    axes,
    ...totals(axes),
    reg_fit: {
      score,
      rationale: `REG FIT ${score}, ${level} (language-model judge${cut}).${quoted}`,
      evidence: regFit.evidence,
    },
  };
}

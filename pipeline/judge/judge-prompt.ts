import type { Candidate } from "../domain/candidate.ts";
import type { Rubric } from "../domain/rubric.ts";
import { JUDGE_RESPONSE_FORMAT } from "./judge-answer.ts";

/** Bumped whenever the instructions change, so cached answers to the old wording are not reused. */
export const JUDGE_PROMPT_VERSION = "2";

/** The instructions: the whole rubric, the same for every candidate of a run. */
export function judgeInstructions(rubric: Rubric): string {
  const axes = rubric.axes.map((axis) =>
    [
      `${axis.id} ${axis.name} (${axis.group}): ${axis.definition}`,
      ...axis.levels.map((level) => `  ${level.score}: ${level.meaning}`),
    ].join("\n"),
  );
  const regFit = rubric.reg_fit;
  // The rules scorer scales every axis by mission focus; the judge is asked the same question in words.
  const focus = rubric.focus
    ? [
        `Mission focus: ${rubric.focus.question} Score every axis for what the paper contributes to that`,
        "mission: a paper whose agent, safety or benchmark words are only context scores low on every axis,",
        "and an agent built for one field (medicine, science) scores below work on the agent system itself.",
        "",
      ]
    : [];
  return [
    `You score arXiv papers on the Research-Picks rubric ${rubric.version}. Read only the title, abstract`,
    "and author comment given; do not assume what they do not say. Score each axis 0..5 by the level",
    "descriptions, and REG FIT 1..3. For each score give up to three pieces of evidence: the rubric signal",
    "or criterion, and a verbatim quote from the given text (quotes not found in the text are discarded).",
    "",
    ...focus,
    "Axes:",
    ...axes,
    "",
    `${regFit.name}: ${regFit.question}`,
    ...regFit.frameworks.map((framework) => `- ${framework.name}: ${framework.looks_for}`),
    ...regFit.levels.map((level) => `  ${level.score} (${level.name}): ${level.meaning}`),
    `Decision: ${regFit.decision.text}`,
    ...regFit.criteria.map(
      (criterion) => `- ${criterion.name}: ${criterion.question} If absent: ${criterion.remediation}.`,
    ),
    "The rationale names what a reviewer would ask for. Answer with the JSON object only.",
  ].join("\n");
}

/** One chat-completions request body for one candidate. */
export function judgeRequest(
  model: string,
  instructions: string,
  candidate: Candidate,
): Record<string, unknown> {
  const paper = {
    arxiv_id: candidate.id,
    title: candidate.title,
    categories: candidate.categories,
    abstract: candidate.summary,
    ...(candidate.comment ? { comment: candidate.comment } : {}),
  };
  return {
    model,
    temperature: 0,
    messages: [
      { role: "system", content: instructions },
      { role: "user", content: JSON.stringify(paper) },
    ],
    response_format: JUDGE_RESPONSE_FORMAT,
  };
}

// Score + select, shared by `picks curate` (which publishes the result) and `picks eval` (which measures
// it against labels), so the two can never drift apart.

import type { Candidate } from "./domain/candidate.ts";
import { type CompiledRelevance, rankPaper } from "./domain/relevance-model.ts";
import type { Rubric } from "./domain/rubric.ts";
import type { ScoringRun, Screened } from "./domain/run-record.ts";
import type { Scores } from "./domain/score.ts";
import { compileRubric, scoreWith } from "./domain/scorer.ts";
import {
  type Decision,
  type ScoredCandidate,
  type SelectionPolicy,
  selectPicks,
} from "./domain/selection.ts";

export interface ScoringContext {
  rubric: Rubric;
  /** The deterministic scorer, for candidates another scorer cannot score. */
  rules: (candidate: Candidate) => Scores;
  progress: (detail: string) => void;
}

/** A scorer other than the rules scorer (the language-model judge): scores in candidate order. */
export interface CandidateScorer {
  score(
    candidates: readonly Candidate[],
    context: ScoringContext,
  ): Promise<{ scores: Scores[]; run: ScoringRun }>;
}

export interface ScreenOptions {
  candidates: readonly Candidate[];
  rubric: Rubric;
  /** Passed through to `selectPicks` whole: fields it gains later take effect here too. */
  selection: SelectionPolicy;
  /** Scores instead of the rules scorer (the language-model judge); absent: the rules scorer. */
  scorer?: CandidateScorer;
  /** Ranks by the relevance model; absent: by the rubric's total (`--ranker rules`). */
  ranker?: CompiledRelevance;
  progress?: (detail: string) => void;
}

export interface ScreenResult {
  /** Every candidate with its scores, in candidate order. */
  scored: ScoredCandidate[];
  /** Selection's decision for every candidate, in ranking order. */
  decisions: Decision[];
  /** The decisions with each candidate's title and scores, in ranking order (the run record's list). */
  screened: Screened[];
  scoring: ScoringRun;
}

const RULES_RUN: ScoringRun = {
  scorer: "rules",
  model: null,
  llm_scored: 0,
  cache_hits: 0,
  fallbacks: [],
  usage: { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: null },
};

/** Scores every candidate (the rules, or the given scorer with the rules as its fallback) and selects. */
export async function screenCandidates(options: ScreenOptions): Promise<ScreenResult> {
  const { candidates, rubric } = options;
  const compiled = compileRubric(rubric);
  const rules = (candidate: Candidate) => scoreWith(compiled, candidate);
  let scoring: ScoringRun = { ...RULES_RUN, fallbacks: [], usage: { ...RULES_RUN.usage } };
  let allScores: Scores[];
  if (options.scorer) {
    const context = { rubric, rules, progress: options.progress ?? (() => {}) };
    ({ scores: allScores, run: scoring } = await options.scorer.score(candidates, context));
  } else {
    allScores = candidates.map(rules);
  }
  const { ranker } = options;
  const scored: ScoredCandidate[] = candidates.map((candidate, index) => ({
    candidate,
    scores: allScores[index] as Scores,
    ...(ranker ? { ranking: rankPaper(ranker, candidate) } : {}),
  }));

  const decisions = selectPicks(scored, options.selection);
  const byId = new Map<string, ScoredCandidate>(scored.map((entry) => [entry.candidate.id, entry]));
  const screened: Screened[] = decisions.map((decision) => {
    const entry = byId.get(decision.id) as ScoredCandidate;
    const ranking = entry.ranking
      ? { relevance: entry.ranking.relevance, rank_score: entry.ranking.rank_score }
      : {};
    return { ...decision, title: entry.candidate.title, scores: entry.scores, ...ranking };
  });
  return { scored, decisions, screened, scoring };
}

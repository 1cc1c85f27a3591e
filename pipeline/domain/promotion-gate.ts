// Measures a newly trained model and the current one on the same labelled days for the promotion gate,
// each day by a model that did not see it wherever the labels allow. The candidate is measured by its
// own leave-one-day-out folds, and on a day the current model never saw by a model trained, settings
// included, without that day. The current model is measured as it is on days it was not trained on;
// on its own training days, its procedure (its recorded settings) is trained again without the day,
// which needs the labels it learned from for all its training days; without them (a day missing, or
// relabelled since) it is measured as it is, in its favour.

import { calibrate } from "./calibration.ts";
import type { Candidate } from "./candidate.ts";
import type { GateDay, SideFigures } from "./promotion.ts";
import { compileRelevance, type Ranking, type RelevanceModel, rankPaper } from "./relevance-model.ts";
import {
  embeddingOf,
  heldOutFigures,
  type LabelledDay,
  type LabelledPaper,
  type OutOfFoldScores,
  type TrainedRelevance,
  type TrainSettings,
  trainRelevanceWithFolds,
} from "./relevance-training.ts";
import type { Rubric } from "./rubric.ts";
import type { Scores } from "./score.ts";
import { compileRubric, scoreWith } from "./scorer.ts";
import { type SelectionPolicy, selectPicks } from "./selection.ts";

/** A labelled day whose papers are whole candidates, so the rubric can score them for selection. */
export interface GateInputDay extends LabelledDay {
  papers: ReadonlyArray<LabelledPaper & { paper: Candidate }>;
}

export interface GateInput {
  days: readonly GateInputDay[];
  candidate: TrainedRelevance;
  current: RelevanceModel;
  /** The settings the candidate was trained with; the current model's procedure keeps its own. */
  settings: Omit<TrainSettings, "version">;
  rubric: Rubric;
  selection: SelectionPolicy;
}

type Side = Omit<SideFigures, "measured">;

/** The current model's procedure: its recorded settings, with what the file does not record from ours. */
function recipeOf(model: RelevanceModel, settings: GateInput["settings"]): GateInput["settings"] {
  // Word vectors belong to a procedure: the current model's are those it carries, if any.
  const { embedding: _candidates, ...shared } = settings;
  const embedding = model.embedding;
  return {
    ...shared,
    ...(embedding ? { embedding: embeddingOf(embedding, embedding) } : {}),
    features: model.features,
    grid: model.training.grid,
    regulated_weights: model.training.regulated_weights,
  };
}

const recipeKey = (a: GateInput["settings"]) =>
  JSON.stringify([a.features, a.grid, a.regulated_weights, a.max_terms, a.embedding?.file.vectors ?? null]) +
  JSON.stringify([a.embedding?.weight ?? null, a.embedding?.heads ?? null]);
const sameRecipe = (a: GateInput["settings"], b: GateInput["settings"]) => recipeKey(a) === recipeKey(b);

/** A fold's scores as the rankings selection reads (no reasons: the gate counts, it does not explain). */
function rankingsOf(scores: OutOfFoldScores, model: RelevanceModel): Ranking[] {
  return scores.rank_score.map((rankScore, k) => ({
    relevance: {
      on_topic: scores.on_topic[k] as number,
      top: scores.top[k] as number,
      regulated: scores.regulated[k] as number,
      must_read: calibrate(model.calibration, rankScore),
    },
    rank_score: rankScore,
    why_ranked: [],
  }));
}

/** A day's figures from its papers' rankings: must-reads picked, recall@10 and AUC on-topic. */
function figuresOf(
  day: GateInputDay,
  scores: readonly Scores[],
  rankings: readonly Ranking[],
  selection: SelectionPolicy,
): Side {
  const scored = day.papers.map((item, k) => ({
    candidate: item.paper,
    scores: scores[k] as Scores,
    ranking: rankings[k] as Ranking,
  }));
  const label = new Map(day.papers.map((item) => [item.paper.id, item.label]));
  const top = selectPicks(scored, selection).filter(
    (decision) => decision.kept && label.get(decision.id) === 2,
  ).length;
  const figures = heldOutFigures(
    day.date,
    day.papers.map((item) => item.label),
    rankings.map((ranking) => ranking.rank_score),
  );
  const top10 = Math.round((figures.recall_top10 ?? 0) * figures.top_labels);
  return { top, top10, recall_top10: figures.recall_top10, auc_on_topic: figures.auc_on_topic };
}

const labelCountsOf = (day: GateInputDay) => ({
  top: day.papers.filter((item) => item.label === 2).length,
  on_topic: day.papers.filter((item) => item.label === 1).length,
  off_mission: day.papers.filter((item) => item.label === 0).length,
});

/** `day` ranked by a model of the candidate's procedure trained on every other day. */
function nestedRankings(
  days: readonly GateInputDay[],
  day: GateInputDay,
  settings: GateInput["settings"],
  version: string,
): Ranking[] {
  const others = days.filter((other) => other !== day);
  if (others.length < 2) {
    throw new Error(`the gate needs two days besides ${day.date} to measure the new model on it`);
  }
  const model = compileRelevance(trainRelevanceWithFolds(others, { version, ...settings }).model);
  return day.papers.map((item) => rankPaper(model, item.paper));
}

/**
 * Both models' figures on every day of `input.days`, for `gateVerdict`.
 * @example gateDaysOf({ days, candidate, current, settings, rubric, selection })[0].current.measured // "left out"
 */
export function gateDaysOf(input: GateInput): GateDay[] {
  const { days, candidate, current, selection } = input;
  const compiledRubric = compileRubric(input.rubric);
  const scoresOf = new Map(
    days.map((day) => [day.date, day.papers.map((item) => scoreWith(compiledRubric, item.paper))]),
  );
  const candidateFolds = new Map(candidate.held_out.map((fold) => [fold.date, fold]));

  const currentDays = new Set(current.training.days.map((day) => day.date));
  // A day is at hand when its labels are the ones the current model learned: the same papers and the
  // same counts of each label. A day relabelled since cannot stand in for what the model saw.
  const learned = new Map(
    current.training.days.map((day) => [day.date, JSON.stringify([day.papers, day.label_counts])]),
  );
  const atHand = new Set(
    days
      .filter((day) => learned.get(day.date) === JSON.stringify([day.papers.length, labelCountsOf(day)]))
      .map((day) => day.date),
  );
  const canLeaveOut = currentDays.size >= 2 && [...currentDays].every((date) => atHand.has(date));
  const recipe = recipeOf(current, input.settings);
  let currentFolds: Map<string, OutOfFoldScores> | undefined;
  let currentFoldModel = current;
  if (canLeaveOut) {
    const sameDays = currentDays.size === days.length;
    if (sameDays && sameRecipe(recipe, input.settings)) {
      // The same procedure on the same labels gives the same folds: measured once.
      currentFolds = candidateFolds;
      currentFoldModel = candidate.model;
    } else {
      const retrained = trainRelevanceWithFolds(
        days.filter((day) => currentDays.has(day.date)),
        { version: current.version, ...recipe },
      );
      currentFolds = new Map(retrained.held_out.map((fold) => [fold.date, fold]));
      currentFoldModel = retrained.model;
    }
  }
  const compiledCurrent = compileRelevance(current);

  return days.map((day) => {
    const scores = scoresOf.get(day.date) as Scores[];
    const candidateFold = candidateFolds.get(day.date);
    if (!candidateFold) throw new Error(`the candidate model has no fold for ${day.date}`);
    const unseen = !currentDays.has(day.date);
    // On a day the current model never saw it is measured as it is, honestly; the candidate then gets
    // a model trained without the day, settings chosen without it too, rather than the settings
    // search's fold, whose settings were chosen with the day among those scored.
    const mine = unseen
      ? figuresOf(day, scores, nestedRankings(days, day, input.settings, current.version), selection)
      : figuresOf(day, scores, rankingsOf(candidateFold, candidate.model), selection);
    const fold = currentFolds?.get(day.date);
    let theirs: SideFigures;
    if (fold) {
      theirs = {
        ...figuresOf(day, scores, rankingsOf(fold, currentFoldModel), selection),
        measured: "left out",
      };
    } else {
      const rankings = day.papers.map((item) => rankPaper(compiledCurrent, item.paper));
      const measured = unseen ? "unseen" : "trained on it";
      theirs = { ...figuresOf(day, scores, rankings, selection), measured };
    }
    return { date: day.date, candidate: { ...mine, measured: "left out" }, current: theirs };
  });
}

// `picks eval`: each labelled day is read, screened exactly as `picks curate` screens it (same source
// rules, scorer and selection), and measured against its labels. Nothing is published.

import { basename } from "node:path";
import { calibrate } from "./domain/calibration.ts";
import type { SkippedRow } from "./domain/candidate.ts";
import {
  type DayMetrics,
  evaluateDay,
  type GateBounds,
  type GateResult,
  gateDays,
  type OverallMetrics,
  overallOf,
} from "./domain/evaluation.ts";
import { type CompiledRelevance, compileRelevance } from "./domain/relevance-model.ts";
import {
  type LabelledDay,
  type TrainedRelevance,
  type TrainSettings,
  trainRelevanceWithFolds,
} from "./domain/relevance-training.ts";
import type { Rubric } from "./domain/rubric.ts";
import type { ScoringRun } from "./domain/run-record.ts";
import type { ScorerName } from "./domain/score.ts";
import type { ScoredCandidate, SelectionPolicy } from "./domain/selection.ts";
import {
  type ComparedDay,
  compareSelections,
  gatesOnRegFit,
  type NestedFold,
  nestedSelection,
  type SelectionComparison,
  type SelectionRule,
  SHIPPABLE_CHOICE,
} from "./domain/selection-comparison.ts";
import { EvalInputError, isFile, type LabelledListing, readLabelledListing } from "./labels-file.ts";
import { labelledDaysOf } from "./relevance-file.ts";
import { type CandidateScorer, screenCandidates } from "./screen.ts";

export interface EvaluatedDay extends DayMetrics {
  date: string | null;
  labels_file: string;
  listing: string;
  /** Listing rows that could not be candidates (malformed id, missing title), as curate skips them. */
  skipped: number;
  skipped_rows: SkippedRow[];
  /** Rows whose id appeared before on the day (cross-lists): counted once. */
  duplicates: number;
  scoring: ScoringRun;
}

export interface EvalReport {
  rubric_version: string;
  scorer: ScorerName;
  /** The judge's model; null for the rules. */
  model: string | null;
  /** What ordered the days: a relevance model by version, one trained per left-out day, or the rules. */
  ranker: string;
  selection: SelectionPolicy;
  days: EvaluatedDay[];
  overall: OverallMetrics;
  gate: GateResult;
  /** Every rule's picks on the same ranked days, when asked for. */
  selection_comparison?: SelectionComparison;
}

export interface EvaluateOptions {
  /** Labels files, one per day. */
  labels: readonly string[];
  /** Listings the labels files name when they are not beside them. */
  listings?: readonly string[];
  rubric: Rubric;
  /** The same policy `picks curate` would select with, passed through whole. */
  selection: SelectionPolicy;
  /** The language-model judge; absent: the rules scorer. */
  scorer?: CandidateScorer;
  /** Ranks every day with this relevance model; absent (and no cross-validation): the rubric's total. */
  ranker?: CompiledRelevance;
  /**
   * Leave one day out: each day is ranked by a model trained (with these settings) on the other days
   * given, never on itself. Overrides `ranker`.
   */
  crossValidate?: Omit<TrainSettings, "version">;
  /** How a fold's model is trained (`picks eval` shares the work over threads); default: on this thread. */
  train?: (days: readonly LabelledDay[], settings: TrainSettings) => Promise<TrainedRelevance>;
  bounds?: GateBounds;
  /** Also lets each of these rules choose every day's picks from the same ranking, and measures them. */
  compareSelections?: readonly SelectionRule[];
  progress?: (detail: string) => void;
}

/** The name a day goes by in messages: its date, else its labels file. */
export function dayName(day: Pick<EvaluatedDay, "date" | "labels_file">): string {
  return day.date ?? basename(day.labels_file);
}

/**
 * Screens every labelled day as `picks curate` would and measures it against the labels. Every labels
 * file is read and checked before anything is scored, so a bad one fails fast.
 */
export async function evaluateLabelledDays(options: EvaluateOptions): Promise<EvalReport> {
  const progress = options.progress ?? (() => {});
  const listings = options.listings ?? [];
  for (const path of listings) {
    if (!(await isFile(path))) throw new EvalInputError(`--listing ${path}: no such file`);
  }
  // Every file and listing is read and checked before anything is scored, so a bad one fails fast.
  const inputs: LabelledListing[] = [];
  for (const labelsPath of options.labels) inputs.push(await readLabelledListing(labelsPath, listings));

  // The folds: day i is ranked by a model of the other days only.
  const labelled = options.crossValidate ? labelledDaysOf(inputs).days : [];
  const train = options.train ?? (async (days, settings) => trainRelevanceWithFolds(days, settings));
  // Each fold's model, kept for the nested comparison of selection rules.
  const folds: TrainedRelevance[] = [];
  const rankerOf = async (index: number): Promise<CompiledRelevance | undefined> => {
    if (!options.crossValidate) return options.ranker;
    const others = labelled.filter((_, other) => other !== index);
    progress(`training on ${others.length} other days for ${labelled[index]?.date}`);
    const trained = await train(others, { version: "relevance-0000.00.0", ...options.crossValidate });
    folds[index] = trained;
    return compileRelevance(trained.model);
  };

  const days: EvaluatedDay[] = [];
  const compared: ComparedDay[] = [];
  let scoring: Pick<ScoringRun, "scorer" | "model"> = { scorer: "rules", model: null };
  for (const [index, { labels_file: labelsPath, labels, listing, date, batch }] of inputs.entries()) {
    const ranker = await rankerOf(index);
    progress(`${date ?? basename(labelsPath)}: scoring ${batch.candidates.length} candidates`);
    const screen = await screenCandidates({
      candidates: batch.candidates,
      rubric: options.rubric,
      selection: options.selection,
      ...(options.scorer ? { scorer: options.scorer } : {}),
      ...(ranker ? { ranker } : {}),
      progress,
    });
    scoring = screen.scoring;
    if (options.compareSelections) {
      compared.push({ date: date ?? basename(labelsPath), scored: screen.scored, labels: labels.labels });
    }
    const metrics = evaluateDay({
      scored: screen.scored,
      decisions: screen.decisions,
      labels: labels.labels,
    });
    days.push({
      date,
      labels_file: labelsPath,
      listing,
      ...metrics,
      skipped: batch.skipped.length,
      skipped_rows: batch.skipped,
      duplicates: batch.duplicates,
      scoring: screen.scoring,
    });
  }
  const bounds = options.bounds ?? {};
  return {
    rubric_version: options.rubric.version,
    scorer: scoring.scorer,
    model: scoring.model,
    ranker: options.crossValidate
      ? "relevance model trained on the other days (leave one day out)"
      : options.ranker
        ? `relevance model ${options.ranker.model.version}`
        : "rules (the rubric's total)",
    selection: options.selection,
    days,
    overall: overallOf(days),
    gate: gateDays(
      days.map((day) => ({ day: dayName(day), ...day })),
      bounds,
    ),
    ...(options.compareSelections
      ? { selection_comparison: comparisonOf(compared, folds, options.compareSelections) }
      : {}),
  };
}

const round4 = (value: number) => Number(value.toFixed(4));

/**
 * Every rule on the held-out rankings, then the rule chosen inside the folds: fold i's model ranked its
 * other days by its settings search's inner folds (models that saw neither that day nor day i), and
 * those rankings choose the rule that picks day i. Once among every rule, once among those that do not
 * gate on REG FIT (the rules the shipped selection is chosen from).
 */
function comparisonOf(
  compared: readonly ComparedDay[],
  folds: readonly TrainedRelevance[],
  rules: readonly SelectionRule[],
): SelectionComparison {
  const shippable = rules.filter((rule) => !gatesOnRegFit(rule.policy));
  // The rule to ship is chosen among those that do not gate on REG FIT (SHIPPABLE_RULES says why).
  const comparison = {
    ...compareSelections(compared, rules),
    best: compareSelections(compared, shippable).best,
  };
  if (folds.length !== compared.length) return comparison;
  const nestedFolds = compared.map((held, index): NestedFold => {
    const fold = folds[index] as TrainedRelevance;
    const others = fold.held_out.map((inner): ComparedDay => {
      const day = compared.find((item) => item.date === inner.date) as ComparedDay;
      const byId = new Map(day.scored.map((entry) => [entry.candidate.id, entry]));
      // The inner scores are in the order training read the day: its labelled candidates.
      const papers = day.scored.filter((entry) => Object.hasOwn(day.labels, entry.candidate.id));
      const scored = papers.map((entry, k): ScoredCandidate => {
        const rankScore = round4(inner.rank_score[k] as number);
        return {
          ...(byId.get(entry.candidate.id) as ScoredCandidate),
          ranking: {
            relevance: {
              on_topic: round4(inner.on_topic[k] as number),
              top: round4(inner.top[k] as number),
              regulated: round4(inner.regulated[k] as number),
              must_read: round4(calibrate(fold.model.calibration, rankScore)),
            },
            rank_score: rankScore,
            why_ranked: [],
          },
        };
      });
      return { date: day.date, scored, labels: day.labels };
    });
    return { held, others };
  });
  return {
    ...comparison,
    nested: [
      nestedSelection("every rule", nestedFolds, rules),
      nestedSelection(SHIPPABLE_CHOICE, nestedFolds, shippable),
    ],
  };
}

import type { Command } from "commander";
import { nestedEvaluationOf } from "../pipeline/domain/nested-evaluation.ts";
import type { RelevanceModel } from "../pipeline/domain/relevance-model.ts";
import { DEFAULT_TRAIN_SETTINGS } from "../pipeline/domain/relevance-training.ts";
import { gatesOnRegFit, SELECTION_RULES, SHIPPABLE_CHOICE } from "../pipeline/domain/selection-comparison.ts";
import { type EvalReport, evaluateLabelledDays } from "../pipeline/evaluate.ts";
import { EvalInputError } from "../pipeline/labels-file.ts";
import { writeFileAtomic } from "../pipeline/publish.ts";
import { ModelFileError, readModelFile } from "../pipeline/relevance-file.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import { createLiveSetup } from "./curate-live.ts";
import { EMBEDDINGS_HELP, trainSettingsOf } from "./embeddings-option.ts";
import { describeMiss, printEvalReport } from "./eval-report.ts";
import { parseFractionOption, parseIntOption } from "./options.ts";
import { createOutput, UsageError } from "./output.ts";
import { addScoringOptions, rankerFrom, type ScoringFlags, selectionFrom } from "./scoring-options.ts";
import {
  parseKList,
  parseStrategies,
  runLabellingSimulation,
  type SimulationFlags,
} from "./simulate-labelling.ts";
import { runReaderSimulation } from "./simulate-readers.ts";
import { trainOnThreads } from "./train-threads.ts";

interface EvalFlags extends ScoringFlags {
  labels: string[];
  listing?: string[];
  json: boolean;
  minPrecision?: number;
  minAuc?: number;
  minRecall10?: number;
  minAucOnTopic?: number;
  crossValidate: boolean;
  compareSelections: boolean;
  record?: string;
  embeddings?: string;
  simulateLabelling: boolean;
  simulateReaders: boolean;
  k: SimulationFlags["k"];
  strategies: SimulationFlags["strategies"];
  baseDays?: number;
}

/** A `--min-*` bound that a day missed: the report is printed, and the run exits 1 for CI. */
class BoundMissed extends Error {
  override name = "BoundMissed";
}

export function registerEval(program: Command): void {
  const command = program
    .command("eval")
    .description(
      "measure the scorer against expert-labelled days: screens each day as curate would, publishes nothing",
    )
    .requiredOption("--labels <path...>", "labels files (labels-YYYY-MM-DD.json), one per day")
    .option("--listing <path...>", "listings the labels files name, when they are not beside them")
    .option(
      "--cross-validate",
      "leave one day out: rank each day by a model trained on the other days given, never on itself",
      false,
    )
    .option(
      "--compare-selections",
      "also let each way of choosing picks (no floor, thresholds on the model, the rubric floor) choose every day's picks from the same ranking, compare them, and choose the rule inside the folds (nested)",
      false,
    )
    .option("--embeddings <file>", `with --cross-validate: ${EMBEDDINGS_HELP}`)
    .option(
      "--record <model>",
      "with --cross-validate --compare-selections over days that include every day the model was trained on: write the nested figures into that model file, for its card",
    );
  addScoringOptions(command);
  addBoundOptions(command);
  addSimulationOptions(command);
  command.option("--json", "print the report as JSON", false).action(runEval);
}

/** The `--min-*` bounds a day must meet, or the run exits 1. */
function addBoundOptions(command: Command): void {
  command
    .option(
      "--min-precision <x>",
      "exit 1 if a day's precision is below x (0-1)",
      parseFractionOption("--min-precision"),
    )
    .option(
      "--min-auc <x>",
      "exit 1 if a day's AUC (label 2 vs 0) is below x (0-1)",
      parseFractionOption("--min-auc"),
    )
    .option(
      "--min-recall10 <x>",
      "exit 1 if a day's recall@10 of label-2 papers is below x (0-1)",
      parseFractionOption("--min-recall10"),
    )
    .option(
      "--min-auc-on-topic <x>",
      "exit 1 if a day's AUC (label >= 1 vs 0) is below x (0-1)",
      parseFractionOption("--min-auc-on-topic"),
    );
}

/** The simulations that run instead of the evaluation. */
function addSimulationOptions(command: Command): void {
  command
    .option(
      "--simulate-labelling",
      "instead: measure which papers of a day teach the model most when labelled (random, best-ranked, most-uncertain), as learning curves",
      false,
    )
    .option(
      "--k <list>",
      "with --simulate-labelling: answers taken from the held-out day",
      parseKList,
      [10, 20, 40],
    )
    .option(
      "--strategies <list>",
      "with --simulate-labelling: the orders compared",
      parseStrategies,
      parseStrategies("random,best-ranked,most-uncertain"),
    )
    .option(
      "--base-days <n>",
      "with --simulate-labelling: days the base model learns from (default 3)",
      parseIntOption("--base-days", 1, 1000),
    )
    .option(
      "--simulate-readers",
      "simulated readers (governance, substrate, regulated, cold): their personal lists against the global picks, each day held out",
      false,
    );
}

/** A labels file or listing that cannot be used is a wrong call (exit 2), not a failed run. */
async function inputErrorsAsUsage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof EvalInputError) throw new UsageError(error.message);
    throw error;
  }
}

/** The flags that cannot go together, refused before anything is read. */
function refuseFlagsThatClash(flags: EvalFlags): void {
  if (flags.simulateReaders && (flags.simulateLabelling || flags.crossValidate || flags.compareSelections)) {
    throw new UsageError(
      "`--simulate-readers` fits its own models: it takes no `--simulate-labelling`, `--cross-validate` or `--compare-selections`",
    );
  }
  if (flags.simulateReaders) return;
  if (
    flags.simulateLabelling &&
    (flags.crossValidate || flags.compareSelections || flags.model !== undefined)
  ) {
    throw new UsageError(
      "`--simulate-labelling` trains its own models: it takes no `--cross-validate`, `--compare-selections` or `--model`",
    );
  }
  if (flags.simulateLabelling) return;
  if (flags.crossValidate && (flags.ranker === "rules" || flags.model !== undefined)) {
    throw new UsageError(
      "`--cross-validate` trains its own models: it takes no `--ranker rules` or `--model`",
    );
  }
  if (flags.compareSelections && !flags.crossValidate) {
    throw new UsageError(
      "`--compare-selections` compares rules over rankings by models that did not see each day: it needs `--cross-validate`",
    );
  }
  if (flags.embeddings !== undefined && !flags.crossValidate) {
    throw new UsageError(
      "`--embeddings` is for the models `--cross-validate` trains: it needs `--cross-validate`",
    );
  }
  if (flags.record !== undefined && !(flags.crossValidate && flags.compareSelections)) {
    throw new UsageError(
      "`--record` writes nested figures: it needs `--cross-validate` and `--compare-selections`",
    );
  }
}

async function runEval(flags: EvalFlags): Promise<void> {
  const out = createOutput({ json: flags.json });
  refuseFlagsThatClash(flags);
  if (flags.simulateReaders) return inputErrorsAsUsage(() => runReaderSimulation(flags, out));
  if (flags.simulateLabelling) return inputErrorsAsUsage(() => runLabellingSimulation(flags, out));
  // Read before the long run, so a file that cannot take the figures fails at once.
  const recorded = flags.record === undefined ? undefined : await modelToRecord(flags.record);
  const ranker = flags.crossValidate ? undefined : await rankerFrom(flags);
  const settings = flags.crossValidate ? await trainSettingsOf(flags.embeddings) : DEFAULT_TRAIN_SETTINGS;
  const live = createLiveSetup({
    source: "file",
    categories: [],
    citations: false,
    judge: flags.judge,
    env: process.env,
  });
  try {
    const report = await inputErrorsAsUsage(async () =>
      evaluateLabelledDays({
        labels: flags.labels,
        listings: flags.listing ?? [],
        rubric: await loadRubric(),
        selection: selectionFrom(flags),
        ...(live.scorer ? { scorer: live.scorer } : {}),
        ...(ranker ? { ranker } : {}),
        ...(flags.crossValidate ? { crossValidate: settings, train: trainOnThreads } : {}),
        ...(flags.compareSelections ? { compareSelections: SELECTION_RULES } : {}),
        bounds: {
          ...(flags.minPrecision === undefined ? {} : { min_precision: flags.minPrecision }),
          ...(flags.minAuc === undefined ? {} : { min_auc: flags.minAuc }),
          ...(flags.minRecall10 === undefined ? {} : { min_recall10: flags.minRecall10 }),
          ...(flags.minAucOnTopic === undefined ? {} : { min_auc_on_topic: flags.minAucOnTopic }),
        },
        progress: (detail) => out.progress(detail),
      }),
    );
    printEvalReport(out, report);
    if (recorded && flags.record !== undefined) {
      await recordNested(flags.record, recorded, report);
      out.progress(`wrote the nested figures into ${flags.record}`);
    }
    if (!report.gate.passed) {
      const lines = report.gate.misses.map((miss) => `  ${describeMiss(miss)}`);
      const missed = lines.length === 1 ? "a bound was missed" : `${lines.length} bounds were missed`;
      throw new BoundMissed(`eval: ${missed}:\n${lines.join("\n")}`);
    }
  } finally {
    await live.client?.close();
  }
}

async function modelToRecord(path: string): Promise<RelevanceModel> {
  try {
    return await readModelFile(path);
  } catch (error) {
    if (error instanceof ModelFileError) throw new UsageError(`--record: ${error.message}`);
    throw error;
  }
}

/**
 * Writes the evaluation's nested figures into the model. Every day the model learned from must be among
 * the days evaluated; days it did not learn from (released since) measure its procedure with them.
 */
async function recordNested(path: string, model: RelevanceModel, report: EvalReport): Promise<void> {
  const trained = model.training.days.map((day) => day.date);
  const evaluated = report.days.map((day) => day.date ?? day.labels_file);
  const missing = trained.filter((date) => !evaluated.includes(date));
  if (missing.length > 0) {
    throw new UsageError(
      `--record: ${model.version} was trained on ${missing.join(", ")}, which the evaluation did not cover`,
    );
  }
  if (!report.selection_comparison) throw new Error("a cross-validated comparison was expected");
  const nested = nestedEvaluationOf(
    report.days.map((day) => ({
      date: day.date ?? day.labels_file,
      papers: day.labelled,
      top_labels: day.label_counts.top,
      recall_top10: day.recall_top10,
      auc: day.auc,
      auc_on_topic: day.auc_on_topic,
    })),
    report.selection_comparison,
    SHIPPABLE_CHOICE,
    new Set(
      report.selection_comparison.rules.filter((rule) => gatesOnRegFit(rule.policy)).map((rule) => rule.name),
    ),
    trained.length,
  );
  await writeFileAtomic(path, `${JSON.stringify({ ...model, nested })}\n`);
}

import { basename, resolve } from "node:path";
import type { Command } from "commander";
import {
  AUC_ON_TOPIC_TOLERANCE,
  DAY_SLACK,
  type GateDay,
  gateVerdict,
  type Promotion,
} from "../pipeline/domain/promotion.ts";
import { gateDaysOf } from "../pipeline/domain/promotion-gate.ts";
import type { RelevanceModel } from "../pipeline/domain/relevance-model.ts";
import type { TrainedRelevance, TrainSettings } from "../pipeline/domain/relevance-training.ts";
import { RANKED_SELECTION } from "../pipeline/domain/selection.ts";
import { EvalInputError } from "../pipeline/labels-file.ts";
import { writeFileAtomic } from "../pipeline/publish.ts";
import {
  candidatePath,
  compareVersions,
  MODELS_DIR,
  ModelFileError,
  newestModelPath,
  nextModelVersion,
  operatorLabelFiles,
  promoteCandidate,
  type ReadLabelledDays,
  readLabelledDays,
  readModelFile,
} from "../pipeline/relevance-file.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import { EMBEDDINGS_HELP, trainSettingsOf } from "./embeddings-option.ts";
import { createOutput, type Output, UsageError } from "./output.ts";
import { trainOnThreads } from "./train-threads.ts";

interface TrainFlags {
  labels: string[];
  listing?: string[];
  out?: string;
  modelsDir: string;
  modelVersion?: string;
  operatorLabels: boolean;
  promoteAnyway: boolean;
  embeddings?: string;
  json: boolean;
}

/** The gate kept the current model: the comparison is printed, and the run exits 1. */
class NotPromoted extends Error {
  override name = "NotPromoted";
}

const VERSION = /^relevance-\d{4}\.\d{2}\.\d+$/;
const share = (value: number | null, digits = 2) => (value === null ? "n/a" : value.toFixed(digits));

export function registerTrain(program: Command): void {
  program
    .command("train")
    .description(
      "fit the relevance model that ranks candidates on labelled days; it replaces the newest model in data/models/ only if it measures no worse on the same days",
    )
    .requiredOption("--labels <path...>", "labels files (labels-YYYY-MM-DD.json), one per day")
    .option("--listing <path...>", "listings the labels files name, when they are not beside them")
    .option("--no-operator-labels", "leave out the operator's labels in data/labels/ (`picks label`)")
    .option(
      "--model-version <version>",
      "the model's version, relevance-YYYY.MM.N (default: the next for this month)",
    )
    .option("--models-dir <dir>", "where the models are, the newest being the current one", MODELS_DIR)
    .option("--promote-anyway", "promote the model even where it measures worse than the current one", false)
    .option("--out <file>", "write the model to this file instead, with no comparison and no promotion")
    .option("--embeddings <file>", `${EMBEDDINGS_HELP}; the model carries them`)
    .option("--json", "print the model's summary as JSON", false)
    .action(runTrain);
}

/** The labelled days to learn from: the files given and the operator's, at least two. */
async function readTrainingDays(flags: TrainFlags, out: Output): Promise<ReadLabelledDays> {
  const given = flags.labels.map((path) => resolve(path));
  const operator = flags.operatorLabels ? await operatorLabelFiles() : [];
  const files = [...given, ...operator.filter((path) => !given.includes(path))];
  let read: ReadLabelledDays;
  try {
    read = await readLabelledDays(files, flags.listing ?? []);
  } catch (error) {
    if (error instanceof EvalInputError) throw new UsageError(error.message);
    throw error;
  }
  if (read.days.length < 2) {
    throw new UsageError(
      `training needs at least two labelled days, to leave one out; got ${read.days.length}`,
    );
  }
  for (const { labels_file: file, ids } of read.missing) {
    out.line(
      `warning: ${basename(file)}: ${ids.length} labelled ids not in its listing, ignored: ${ids.slice(0, 5).join(", ")}`,
    );
  }
  return read;
}

/** The current model (none with `--out`) and the new one's version, which must be newer. */
async function currentAndVersion(flags: TrainFlags): Promise<{ current: Current | null; version: string }> {
  // The current model is read before training, so a broken one stops the run at once.
  const currentPath =
    flags.out === undefined ? await newestModelPath(flags.modelsDir).catch(() => null) : null;
  const current = currentPath === null ? null : await readCurrent(currentPath, flags.promoteAnyway);
  const version = flags.modelVersion ?? (await nextModelVersion(new Date(), flags.modelsDir));
  // A promoted model must become the newest: an older version would be written and never used.
  if (current && flags.modelVersion !== undefined && compareVersions(version, current.version) <= 0) {
    throw new UsageError(
      `\`--model-version ${version}\` is not newer than the current model ${current.version}; a promoted model must be the newest`,
    );
  }
  return { current, version };
}

async function runTrain(flags: TrainFlags): Promise<void> {
  const out = createOutput({ json: flags.json });
  if (flags.modelVersion !== undefined && !VERSION.test(flags.modelVersion)) {
    throw new UsageError(
      `Expected \`--model-version\` to be relevance-YYYY.MM.N, got \`${flags.modelVersion}\``,
    );
  }
  const started = performance.now();
  const read = await readTrainingDays(flags, out);
  const { current, version } = await currentAndVersion(flags);
  out.progress(
    `training on ${read.days.length} days, ${read.days.reduce((n, day) => n + day.papers.length, 0)} papers`,
  );
  const settings = await trainSettingsOf(flags.embeddings);
  const trained = await trainOnThreads(read.days, { version, ...settings });
  const trainSeconds = (performance.now() - started) / 1000;
  let model: RelevanceModel = trained.model;
  if (flags.out === undefined) {
    if (current?.model) out.progress(`measuring against ${current.model.version} on the same days`);
    model = {
      ...model,
      promotion: await promotionOf(current, trained, read.days, settings, flags.promoteAnyway),
    };
  }
  const written = flags.out ?? candidatePath(flags.modelsDir, version);
  const content = `${JSON.stringify(model)}\n`;
  const bytes = Buffer.byteLength(content);
  await writeFileAtomic(written, content);
  const decision = model.promotion?.decision;
  const promoted =
    decision !== undefined && decision !== "not promoted"
      ? await promoteCandidate(written, flags.modelsDir)
      : null;
  const seconds = (performance.now() - started) / 1000;
  printTrained(out, { model, current, written, bytes, trainSeconds, seconds, promoted });
  out.json({
    version: model.version,
    path: written,
    promoted,
    promotion: model.promotion ?? null,
    bytes,
    seconds,
    train_seconds: trainSeconds,
    training: model.training,
    c: { on_topic: model.heads.on_topic.c, top: model.heads.top.c },
    terms: model.vocabulary.length,
    calibration: model.calibration,
    cross_validation: model.cross_validation,
    missing_labels: read.missing,
  });
  if (decision === "not promoted") {
    throw new NotPromoted(
      `${model.version} measured worse than ${current?.version} and was not promoted:\n` +
        `${model.promotion?.worse.map((line) => `  ${line}`).join("\n")}\n` +
        `  it is kept at ${written}; \`--promote-anyway\` promotes it`,
    );
  }
}

/** The trained model's summary for a person: its folds, its calibration and what the gate decided. */
function printTrained(
  out: Output,
  run: {
    model: RelevanceModel;
    current: Current | null;
    written: string;
    bytes: number;
    trainSeconds: number;
    seconds: number;
    promoted: string | null;
  },
): void {
  const { model, current } = run;
  out.line(
    `${model.version}: ${model.training.papers} papers from ${model.training.days.length} days, ${model.vocabulary.length} terms, c on-topic ${model.heads.on_topic.c}, c top ${model.heads.top.c}`,
  );
  if (model.embedding) {
    const { corpus, settings: learned, words } = model.embedding;
    out.line(
      `word vectors: ${words.length} words x ${learned.dims} from ${corpus.papers} papers of ${corpus.name}${corpus.commit ? ` at ${corpus.commit}` : ""}, read by ${model.embedding.heads.join(", ")}`,
    );
  }
  out.line(
    `wrote ${run.written} (${run.bytes} bytes); trained in ${run.trainSeconds.toFixed(1)} s, ${run.seconds.toFixed(1)} s in all`,
  );
  out.line("leave one day out (trained on the other days, measured on this one):");
  for (const day of model.cross_validation) {
    out.line(
      `  ${day.date}  ${day.papers} papers, ${day.top_labels} top: recall@10 ${share(day.recall_top10)}, AUC ${share(day.auc, 3)}, AUC on-topic ${share(day.auc_on_topic, 3)}`,
    );
  }
  out.line(
    `must-read likelihood: ${model.calibration.rule}; expected calibration error ${model.calibration.ece}`,
  );
  if (current?.model && model.promotion)
    printGate(out, model.version, current.model.version, model.promotion);
  if (model.promotion?.decision === "first model") out.line("no current model: promoted as the first");
  if (current?.problem) out.line(`the current model could not be read (${current.problem}): replaced anyway`);
  if (run.promoted) out.line(`promoted: ${run.promoted} is now the newest model`);
}

/** What the gate decides: the first model, no worse, promoted anyway, or not promoted, with the comparison. */
async function promotionOf(
  current: Current | null,
  trained: TrainedRelevance,
  days: ReadLabelledDays["days"],
  settings: Omit<TrainSettings, "version">,
  promoteAnyway: boolean,
): Promise<Promotion> {
  const fixed = { tolerance: AUC_ON_TOPIC_TOLERANCE, day_slack: DAY_SLACK };
  if (!current?.model) {
    return {
      replaced: current?.version ?? null,
      decision: current ? "promoted anyway" : "first model",
      ...fixed,
      mean_auc_on_topic: { candidate: null, current: null },
      days: [],
      worse: current?.problem ? [`could not be compared with ${current.problem}`] : [],
    };
  }
  const compared = gateDaysOf({
    days,
    candidate: trained,
    current: current.model,
    settings,
    rubric: await loadRubric(),
    selection: RANKED_SELECTION,
  });
  const verdict = gateVerdict(compared);
  return {
    replaced: current.model.version,
    decision: verdict.promote ? "no worse" : promoteAnyway ? "promoted anyway" : "not promoted",
    ...fixed,
    mean_auc_on_topic: verdict.mean_auc_on_topic,
    days: compared,
    worse: verdict.worse,
  };
}

interface Current {
  version: string;
  model: RelevanceModel | null;
  /** Why the model could not be read (only with `--promote-anyway`, which replaces it regardless). */
  problem?: string;
}

/** The current model, or a stop: a current model that cannot be read cannot be compared with. */
async function readCurrent(path: string, promoteAnyway: boolean): Promise<Current> {
  const version = basename(path, ".json");
  try {
    return { version, model: await readModelFile(path) };
  } catch (error) {
    if (!(error instanceof ModelFileError)) throw error;
    const problem = `${version}: ${error.why}`;
    if (promoteAnyway) return { version, model: null, problem };
    throw new ModelFileError(
      `the current model cannot be compared with: ${problem}; \`--promote-anyway\` replaces it`,
    );
  }
}

/** The two models side by side, day by day. */
function printGate(out: Output, candidate: string, current: string, promotion: Promotion) {
  const { days } = promotion;
  out.line("");
  out.line(
    `promotion gate: ${candidate} (new) against ${current} (current), each day measured by a model that did not see it where the labels allow`,
  );
  out.line("  day         top picks  must-reads in first ten  AUC on-topic   current measured");
  for (const day of days) {
    const { candidate: mine, current: theirs } = day;
    out.line(
      `  ${day.date}  ${String(mine.top).padStart(2)} | ${String(theirs.top).padEnd(2)}   ` +
        `${String(mine.top10).padStart(2)} | ${String(theirs.top10).padEnd(2)}                ` +
        `${share(mine.auc_on_topic, 3)} | ${share(theirs.auc_on_topic, 3)}  ${theirs.measured}`,
    );
  }
  const sum = (pick: (day: GateDay) => number) => days.reduce((total, day) => total + pick(day), 0);
  out.line(
    `  in all      ${String(sum((day) => day.candidate.top)).padStart(2)} | ${String(sum((day) => day.current.top)).padEnd(2)}   ` +
      `${String(sum((day) => day.candidate.top10)).padStart(2)} | ${sum((day) => day.current.top10)}`,
  );
  const mean = promotion.mean_auc_on_topic;
  out.line(
    `  mean AUC on-topic ${share(mean.candidate, 3)} | ${share(mean.current, 3)} (may fall by ${promotion.tolerance});` +
      ` a day may lose ${promotion.day_slack} must-read among its picks or its first ten when the totals hold`,
  );
  if (days.some((day) => day.current.measured === "trained on it")) {
    out.line(
      "  trained on it: the labels of the current model's other training days were not given, so it could not leave the day out; measured on a day it learned from, it is favoured",
    );
  }
  out.line(promotion.worse.length === 0 ? "  no worse" : `  worse: ${promotion.worse.join("; ")}`);
}

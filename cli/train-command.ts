import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import { DEFAULT_TRAIN_SETTINGS, trainRelevance } from "../pipeline/domain/relevance-training.ts";
import { EvalInputError } from "../pipeline/labels-file.ts";
import { writeFileAtomic } from "../pipeline/publish.ts";
import {
  MODELS_DIR,
  nextModelVersion,
  operatorLabelFiles,
  readLabelledDays,
} from "../pipeline/relevance-file.ts";
import { createOutput, UsageError } from "./output.ts";

interface TrainFlags {
  labels: string[];
  listing?: string[];
  out?: string;
  modelVersion?: string;
  operatorLabels: boolean;
  json: boolean;
}

const VERSION = /^relevance-\d{4}\.\d{2}\.\d+$/;
const share = (value: number | null, digits = 2) => (value === null ? "n/a" : value.toFixed(digits));

export function registerTrain(program: Command): void {
  program
    .command("train")
    .description(
      "fit the relevance model that ranks candidates on labelled days, and write it to data/models/",
    )
    .requiredOption("--labels <path...>", "labels files (labels-YYYY-MM-DD.json), one per day")
    .option("--listing <path...>", "listings the labels files name, when they are not beside them")
    .option("--no-operator-labels", "leave out the operator's labels in data/labels/ (`picks label`)")
    .option(
      "--model-version <version>",
      "the model's version, relevance-YYYY.MM.N (default: the next for this month)",
    )
    .option("--out <file>", "where to write the model (default: data/models/<version>.json)")
    .option("--json", "print the model's summary as JSON", false)
    .action(async (flags: TrainFlags) => {
      const out = createOutput({ json: flags.json });
      if (flags.modelVersion !== undefined && !VERSION.test(flags.modelVersion)) {
        throw new UsageError(
          `Expected \`--model-version\` to be relevance-YYYY.MM.N, got \`${flags.modelVersion}\``,
        );
      }
      const given = flags.labels.map((path) => resolve(path));
      const operator = flags.operatorLabels ? await operatorLabelFiles() : [];
      const files = [...given, ...operator.filter((path) => !given.includes(path))];
      const started = performance.now();
      let read: Awaited<ReturnType<typeof readLabelledDays>>;
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
      const version = flags.modelVersion ?? (await nextModelVersion(new Date()));
      out.progress(
        `training on ${read.days.length} days, ${read.days.reduce((n, day) => n + day.papers.length, 0)} papers`,
      );
      const model = trainRelevance(read.days, { version, ...DEFAULT_TRAIN_SETTINGS });
      const path = flags.out ?? join(MODELS_DIR, `${version}.json`);
      const content = `${JSON.stringify(model)}\n`;
      const bytes = Buffer.byteLength(content);
      await writeFileAtomic(path, content);
      const seconds = (performance.now() - started) / 1000;
      out.line(
        `${model.version}: ${model.training.papers} papers from ${model.training.days.length} days, ${model.vocabulary.length} terms, c on-topic ${model.heads.on_topic.c}, c top ${model.heads.top.c}`,
      );
      out.line(`wrote ${path} (${bytes} bytes) in ${seconds.toFixed(1)} s`);
      out.line("leave one day out (trained on the other days, measured on this one):");
      for (const day of model.cross_validation) {
        out.line(
          `  ${day.date}  ${day.papers} papers, ${day.top_labels} top: recall@10 ${share(day.recall_top10)}, AUC ${share(day.auc, 3)}, AUC on-topic ${share(day.auc_on_topic, 3)}`,
        );
      }
      out.json({
        version: model.version,
        path,
        bytes,
        seconds,
        training: model.training,
        c: { on_topic: model.heads.on_topic.c, top: model.heads.top.c },
        terms: model.vocabulary.length,
        cross_validation: model.cross_validation,
        missing_labels: read.missing,
      });
    });
}

// `picks eval --simulate-readers`: simulated readers on the labelled days, each day held out in turn
// (pipeline/domain/reader-simulation.ts). Prints each reader's precision@5 beside the global picks' and
// the arxiv-sanity-style anchor's, recall@10 of their must-reads, and the ratings' learning curve.

import { FULL_SIMULATION, simulateReaders } from "../pipeline/domain/reader-simulation.ts";
import { readSimDays } from "../pipeline/reader-days.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { type Output, UsageError } from "./output.ts";

export interface ReaderSimulationFlags {
  labels: string[];
  listing?: string[];
  model?: string;
}

const figure = (value: number | null) => (value === null ? "-" : value.toFixed(2));

export async function runReaderSimulation(flags: ReaderSimulationFlags, out: Output): Promise<void> {
  const days = await readSimDays(flags.labels, flags.listing ?? []);
  if (days.length < 2) {
    throw new UsageError(
      `\`--simulate-readers\` needs at least 2 labelled days (one held out, the others to learn from); got ${days.length}`,
    );
  }
  const { model, vocabulary } = await loadRelevanceModel(flags.model ?? (await newestModelPath()));
  out.progress(
    `${days.length} days, each held out in turn; global model fitted on the others with ${model.version}'s settings`,
  );
  const report = simulateReaders(days, model, vocabulary, FULL_SIMULATION);
  out.json(report);
  out.line(
    `readers on ${days.length} held-out days (library ${FULL_SIMULATION.library} papers; ${model.version})`,
  );
  out.line(
    "reader      p@5 personal  global  anchor   recall@10 personal  global   cold=global   ratings curve (days 0..5)",
  );
  for (const reader of report.readers) {
    out.line(
      [
        reader.reader.padEnd(11),
        figure(reader.precision5.personal).padStart(12),
        figure(reader.precision5.global).padStart(7),
        figure(reader.precision5.baseline).padStart(7),
        figure(reader.recall10.personal).padStart(19),
        figure(reader.recall10.global).padStart(7),
        `${reader.cold_equals_global_days}/${reader.days}`.padStart(13),
        `   ${reader.learning_curve.map((value) => value.toFixed(2)).join(" ")}`,
      ].join(" "),
    );
  }
}

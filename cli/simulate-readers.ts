// `picks eval --simulate-readers`: simulated readers on the labelled days, each day held out in turn
// (pipeline/domain/reader-simulation.ts), the personal model's settings chosen inside the folds. Prints
// each reader's precision@5 beside the global picks' and the arxiv-sanity-style anchor's, recall@10 of
// their must-reads, the ratings' learning curve, and the settings each held-out day chose.

import { FULL_SIMULATION, simulateReaders, simulationLines } from "../pipeline/domain/reader-simulation.ts";
import { readSimDays } from "../pipeline/reader-days.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { type Output, UsageError } from "./output.ts";

export interface ReaderSimulationFlags {
  labels: string[];
  listing?: string[];
  model?: string;
}

export async function runReaderSimulation(flags: ReaderSimulationFlags, out: Output): Promise<void> {
  const days = await readSimDays(flags.labels, flags.listing ?? []);
  if (days.length < 2) {
    throw new UsageError(
      `\`--simulate-readers\` needs at least 2 labelled days (one held out, the others to learn from); got ${days.length}`,
    );
  }
  const { model, vocabulary } = await loadRelevanceModel(flags.model ?? (await newestModelPath()));
  out.progress(
    `${days.length} days, each held out in turn (settings chosen on the others); global model fitted on the others with ${model.version}'s settings`,
  );
  const report = simulateReaders(days, model, vocabulary, FULL_SIMULATION);
  out.json(report);
  out.line(
    `readers on ${days.length} held-out days (library ${FULL_SIMULATION.library} papers; ${model.version}; nested)`,
  );
  for (const line of simulationLines(report)) out.line(line);
}

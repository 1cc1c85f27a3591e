// The readers' simulation on the full setting: the twelve released days, each held out in turn, the
// personal model's and the blend's settings chosen inside the folds (about 80 global fits in all), the
// 5-day rating run. Prints what docs/curation.md quotes, and the time it took. Run alone with
// `node --import tsx bench/reader-simulation.ts`; `npm run bench` calls it in its `reader-simulation`
// section (BENCH_ONLY=reader-simulation).
import { fileURLToPath } from "node:url";
import { FULL_SIMULATION, simulateReaders, simulationLines } from "../pipeline/domain/reader-simulation.ts";
import { readSimDays } from "../pipeline/reader-days.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { LABELLED_DAYS } from "../test/helpers/curation.ts";

export async function runReaderSimulationBench(): Promise<string[]> {
  const { model, vocabulary } = await loadRelevanceModel(await newestModelPath());
  const days = await readSimDays(
    LABELLED_DAYS.map((day) => day.labels),
    LABELLED_DAYS.map((day) => day.listing),
  );
  const cpu = process.cpuUsage();
  const started = performance.now();
  const report = simulateReaders(days, model, vocabulary, FULL_SIMULATION);
  const used = process.cpuUsage(cpu);
  return [
    `readers' simulation, ${days.length} days held out in turn, settings chosen inside the folds (${model.version}):`,
    ...simulationLines(report).map((line) => `  ${line}`),
    `  ${((performance.now() - started) / 1000).toFixed(1)} s wall, ${((used.user + used.system) / 1e6).toFixed(1)} s CPU`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await runReaderSimulationBench()) console.log(line);
}

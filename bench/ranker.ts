// The relevance model's costs: loading the shipped model, ranking one 250-candidate day, training on the
// eight released days (wall and CPU time, since these shared machines are often busy), and the promotion
// gate that measures the trained model against the shipped one on the same days. Run alone with
// `node --import tsx bench/ranker.ts`; `npm run bench` calls `runRankerBench()`.
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { trainOnThreads } from "../cli/train-threads.ts";
import { gateDaysOf } from "../pipeline/domain/promotion-gate.ts";
import { type CompiledRelevance, rankPaper } from "../pipeline/domain/relevance-model.ts";
import { DEFAULT_TRAIN_SETTINGS } from "../pipeline/domain/relevance-training.ts";
import { RANKED_SELECTION } from "../pipeline/domain/selection.ts";
import { loadRelevanceModel, newestModelPath, readLabelledDays } from "../pipeline/relevance-file.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import { LABELLED_DAYS } from "../test/helpers/curation.ts";
import { readListing } from "../test/helpers/fixtures.ts";

const LISTING = fileURLToPath(
  new URL("../../shared/fixtures/candidates/listing-2026-06-12-314-rows-250-unique.jsonl", import.meta.url),
);

export interface RankerFigures {
  loadMs: number;
  rankMs: number;
  candidates: number;
  trainSeconds: number;
  trainCpuSeconds: number;
  /** The gate against the shipped model on the same days (its folds reused: same procedure, same days). */
  gateSeconds: number;
  papers: number;
  days: number;
}

function best<T>(times: number, run: () => T): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

export async function runRankerBench(): Promise<RankerFigures> {
  const path = await newestModelPath();
  let loadMs = Number.POSITIVE_INFINITY;
  let compiled: CompiledRelevance | undefined;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    compiled = await loadRelevanceModel(path);
    loadMs = Math.min(loadMs, performance.now() - started);
  }
  const candidates = readListing(LISTING);
  const model = compiled as CompiledRelevance;
  const rankMs = best(20, () => candidates.map((candidate) => rankPaper(model, candidate)));

  const { days } = await readLabelledDays(
    LABELLED_DAYS.map((day) => day.labels),
    LABELLED_DAYS.map((day) => day.listing),
  );
  const cpu = process.cpuUsage();
  const started = performance.now();
  // As `picks train` runs it: the settings search's folds shared over one thread per core.
  const trained = await trainOnThreads(days, { ...DEFAULT_TRAIN_SETTINGS, version: "relevance-2026.11.9" });
  const used = process.cpuUsage(cpu);
  const trainSeconds = (performance.now() - started) / 1000;
  const rubric = await loadRubric();
  const gateStarted = performance.now();
  gateDaysOf({
    days,
    candidate: trained,
    current: model.model,
    settings: DEFAULT_TRAIN_SETTINGS,
    rubric,
    selection: RANKED_SELECTION,
  });
  return {
    loadMs,
    rankMs,
    candidates: candidates.length,
    trainSeconds,
    trainCpuSeconds: (used.user + used.system) / 1e6,
    gateSeconds: (performance.now() - gateStarted) / 1000,
    papers: days.reduce((sum, day) => sum + day.papers.length, 0),
    days: days.length,
  };
}

export function rankerLines(figures: RankerFigures): string[] {
  return [
    `relevance model: load ${figures.loadMs.toFixed(1)} ms + rank ${figures.candidates} candidates ${figures.rankMs.toFixed(1)} ms = ` +
      `${(figures.loadMs + figures.rankMs).toFixed(1)} ms added to a curate  (target < 50 ms)`,
    `picks train on the ${figures.days} released days (${figures.papers} papers, folds on ${availableParallelism()} threads): ` +
      `${figures.trainSeconds.toFixed(2)} s wall, ${figures.trainCpuSeconds.toFixed(2)} s CPU of this thread  (target < 6 s)`,
    `promotion gate against the shipped model on the same days: ${figures.gateSeconds.toFixed(2)} s more`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of rankerLines(await runRankerBench())) console.log(line);
}

// The relevance model's costs: loading the shipped model, ranking one 250-candidate day, and training on
// the six released days (wall and CPU time, since these shared machines are often busy). Run alone with
// `node --import tsx bench/ranker.ts`; `npm run bench` calls `runRankerBench()`.
import { fileURLToPath } from "node:url";
import { type CompiledRelevance, rankPaper } from "../pipeline/domain/relevance-model.ts";
import { DEFAULT_TRAIN_SETTINGS, trainRelevance } from "../pipeline/domain/relevance-training.ts";
import { loadRelevanceModel, newestModelPath, readLabelledDays } from "../pipeline/relevance-file.ts";
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
  papers: number;
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
  trainRelevance(days, { ...DEFAULT_TRAIN_SETTINGS, version: "relevance-2026.11.1" });
  const used = process.cpuUsage(cpu);
  return {
    loadMs,
    rankMs,
    candidates: candidates.length,
    trainSeconds: (performance.now() - started) / 1000,
    trainCpuSeconds: (used.user + used.system) / 1e6,
    papers: days.reduce((sum, day) => sum + day.papers.length, 0),
  };
}

export function rankerLines(figures: RankerFigures): string[] {
  return [
    `relevance model: load ${figures.loadMs.toFixed(1)} ms + rank ${figures.candidates} candidates ${figures.rankMs.toFixed(1)} ms = ` +
      `${(figures.loadMs + figures.rankMs).toFixed(1)} ms added to a curate  (target < 50 ms)`,
    `picks train on the six released days (${figures.papers} papers): ${figures.trainSeconds.toFixed(2)} s wall, ` +
      `${figures.trainCpuSeconds.toFixed(2)} s CPU  (target < 5 s)`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of rankerLines(await runRankerBench())) console.log(line);
}

// The relevance model's costs: loading the shipped model, ranking one 250-candidate day, curating the
// 320-candidate day (2026-06-03) as a process, and `picks train` on the twelve released days as the
// operator runs it (a process, its folds on one thread per core), with the promotion gate against the
// shipped model on the same days, whatever the gate decides. Run alone with
// `node --import tsx bench/ranker.ts`; `npm run bench` calls `runRankerBench()`.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CompiledRelevance, rankPaper } from "../pipeline/domain/relevance-model.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { LABELLED_DAYS } from "../test/helpers/curation.ts";
import { readListing } from "../test/helpers/fixtures.ts";
import { runPicks } from "../test/helpers/processes.ts";

/** The largest released day: 405 rows, 320 unique candidates. */
const LISTING_320 = fileURLToPath(new URL("../../shared/curation/listing-2026-06-03.jsonl", import.meta.url));
const LISTING = fileURLToPath(
  new URL("../../shared/fixtures/candidates/listing-2026-06-12-314-rows-250-unique.jsonl", import.meta.url),
);

export interface RankerFigures {
  loadMs: number;
  rankMs: number;
  candidates: number;
  /** Training as `picks train --json` reports it, from reading the labels to the model in hand. */
  trainSeconds: number;
  /** The whole command after training: the gate (its folds reused: same procedure, same days), the writes. */
  gateSeconds: number;
  /** The process, Node's start included. */
  wallSeconds: number;
  /** What the gate decided: "no worse", "not promoted", ... */
  decision: string;
  /** `picks curate` of the 320-candidate day, the process with Node's start, best of 3. */
  curate320Seconds: number;
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

  // A models folder holding the shipped model only, so the gate compares with it and promotes into it.
  const models = await mkdtemp(join(tmpdir(), "picks-bench-models-"));
  await copyFile(path, join(models, basename(path)));
  const started = performance.now();
  const run = await runPicks([
    "train",
    "--labels",
    ...LABELLED_DAYS.map((day) => day.labels),
    "--listing",
    ...LABELLED_DAYS.map((day) => day.listing),
    "--no-operator-labels",
    "--models-dir",
    models,
    "--json",
  ]);
  const wallSeconds = (performance.now() - started) / 1000;
  // Exit 1 with the summary printed is the gate keeping the current model: a measured outcome too.
  if (run.code !== 0 && !(run.code === 1 && run.stdout.startsWith("{"))) {
    throw new Error(`picks train exited ${run.code}: ${run.stderr}`);
  }
  const summary = JSON.parse(run.stdout);
  let curate320Seconds = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const curated = performance.now();
    const day = await runPicks([
      "curate",
      "--source",
      `file:${LISTING_320}`,
      "--date",
      "2026-06-03",
      "--out",
      join(models, `site-${i}`),
      "--runs",
      join(models, `runs-${i}`),
      "--model",
      path,
    ]);
    if (day.code !== 0) throw new Error(`picks curate exited ${day.code}: ${day.stderr}`);
    curate320Seconds = Math.min(curate320Seconds, (performance.now() - curated) / 1000);
  }
  await rm(models, { recursive: true, force: true });
  return {
    loadMs,
    rankMs,
    candidates: candidates.length,
    trainSeconds: summary.train_seconds,
    gateSeconds: summary.seconds - summary.train_seconds,
    wallSeconds,
    decision: summary.promotion?.decision ?? "none",
    curate320Seconds,
    papers: summary.training.papers,
    days: summary.training.days.length,
  };
}

export function rankerLines(figures: RankerFigures): string[] {
  return [
    `relevance model: load ${figures.loadMs.toFixed(1)} ms + rank ${figures.candidates} candidates ${figures.rankMs.toFixed(1)} ms = ` +
      `${(figures.loadMs + figures.rankMs).toFixed(1)} ms added to a curate  (target < 50 ms)`,
    `picks train on the ${figures.days} released days (${figures.papers} papers, folds on ${availableParallelism()} threads): ` +
      `${figures.trainSeconds.toFixed(2)} s training  (target < 8 s)`,
    `  then the promotion gate against the shipped model (${figures.decision}) and the writes: ${figures.gateSeconds.toFixed(2)} s; ` +
      `the process, Node's start included: ${figures.wallSeconds.toFixed(2)} s`,
    `picks curate of the 320-candidate day (2026-06-03), ranked by the model, best of 3, Node start included: ` +
      `${figures.curate320Seconds.toFixed(2)} s  (target < 1.5 s)`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of rankerLines(await runRankerBench())) console.log(line);
}

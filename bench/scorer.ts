// Scoring throughput at 1k, 10k and 100k candidates, built by cycling one real announcement day.
// Run alone with `node --import tsx bench/scorer.ts`; `npm run bench` calls `runScorerBench()`.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Candidate } from "../pipeline/domain/candidate.ts";
import { parseRubric } from "../pipeline/domain/rubric.ts";
import { type CompiledRubric, compileRubric, scoreWith } from "../pipeline/domain/scorer.ts";
import { readListing } from "../test/helpers/fixtures.ts";

const LISTING = fileURLToPath(
  new URL("../../shared/fixtures/candidates/listing-2026-06-12-314-rows-250-unique.jsonl", import.meta.url),
);
const RUBRIC = fileURLToPath(new URL("../data/rubric.json", import.meta.url));
const SIZES = [1_000, 10_000, 100_000] as const;

export interface ScorerFigure {
  candidates: number;
  seconds: number;
  perSecond: number;
  microsPerCandidate: number;
  /** Time per candidate relative to the 1k run: about 1 when time grows linearly. */
  ratioTo1k: number;
}

function loadDay(): Candidate[] {
  return readListing(LISTING);
}

function cycle(day: readonly Candidate[], count: number): Candidate[] {
  return Array.from({ length: count }, (_, i) => {
    const source = day[i % day.length] as Candidate;
    return { ...source, id: `9${String(i).padStart(8, "0")}` };
  });
}

function timeScoring(compiled: CompiledRubric, candidates: readonly Candidate[]): number {
  let sink = 0;
  const started = performance.now();
  for (const candidate of candidates) sink += scoreWith(compiled, candidate).total;
  const elapsed = (performance.now() - started) / 1000;
  if (sink < 0) throw new Error("unreachable: keeps the scores alive");
  return elapsed;
}

/** Scores 1k, 10k and 100k candidates; the best of a few runs per size, figures in size order. */
export function runScorerBench(): ScorerFigure[] {
  const compiled = compileRubric(parseRubric(JSON.parse(readFileSync(RUBRIC, "utf8"))));
  const day = loadDay();
  timeScoring(compiled, cycle(day, 5_000));
  const figures: ScorerFigure[] = [];
  for (const size of SIZES) {
    const candidates = cycle(day, size);
    const runs = size >= 100_000 ? 2 : 5;
    const seconds = Math.min(...Array.from({ length: runs }, () => timeScoring(compiled, candidates)));
    const microsPerCandidate = (seconds * 1e6) / size;
    const base = figures[0]?.microsPerCandidate ?? microsPerCandidate;
    figures.push({
      candidates: size,
      seconds,
      perSecond: size / seconds,
      microsPerCandidate,
      ratioTo1k: microsPerCandidate / base,
    });
  }
  return figures;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const figure of runScorerBench()) {
    console.log(
      `scoring ${figure.candidates} candidates: ${Math.round(figure.perSecond)} candidates/s, ` +
        `${figure.microsPerCandidate.toFixed(1)} µs each, ${figure.ratioTo1k.toFixed(2)}x the 1k time per candidate`,
    );
  }
}

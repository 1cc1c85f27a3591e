// The labelling simulation on the full setting: the eight released days, each held out in turn, k = 10,
// 20 and 40, the three strategies, with a base of three days (32 pairs of held-out and scored day) and of
// six (the released days less the held-out day and the one scored). Prints the learning curves and the
// head-to-heads that docs/curation.md quotes. Run alone with `node --import tsx bench/labelling.ts`;
// `npm run bench` calls it in its `labelling` section (BENCH_ONLY=labelling).
import { fileURLToPath } from "node:url";
import {
  headToHead,
  headToHeadLine,
  LABELLING_STRATEGIES,
  learningCurveLines,
  simulateLabelling,
} from "../pipeline/domain/labelling.ts";
import { DEFAULT_TRAIN_SETTINGS } from "../pipeline/domain/relevance-training.ts";
import { readLabelledDays } from "../pipeline/relevance-file.ts";
import { LABELLED_DAYS } from "../test/helpers/curation.ts";

export const BENCH_BASES = [3, 6] as const;
export const BENCH_KS = [10, 20, 40] as const;

export async function runLabellingBench(bases: readonly number[] = BENCH_BASES): Promise<string[]> {
  const { days } = await readLabelledDays(
    LABELLED_DAYS.map((day) => day.labels),
    LABELLED_DAYS.map((day) => day.listing),
  );
  const lines: string[] = [];
  for (const base of bases) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = simulateLabelling(days, {
      train: { ...DEFAULT_TRAIN_SETTINGS, version: "relevance-0000.00.0" },
      strategies: LABELLING_STRATEGIES,
      ks: BENCH_KS,
      base_days: base,
    });
    const used = process.cpuUsage(cpu);
    lines.push(...learningCurveLines(result));
    for (const k of result.ks) {
      for (const other of ["best-ranked", "random"] as const) {
        lines.push(`  ${headToHeadLine(headToHead(result, "most-uncertain", other, k))}`);
      }
    }
    lines.push(
      `  ${days.length} days, base ${base}: ${((performance.now() - started) / 1000).toFixed(1)} s wall, ` +
        `${((used.user + used.system) / 1e6).toFixed(1)} s CPU  (target: minutes)`,
    );
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await runLabellingBench()) console.log(line);
}

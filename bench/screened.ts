// The screened file's cost to `picks curate` and its size: curate in process on the 250-candidate day
// (../shared/fixtures) and the 320-candidate day (../shared/curation), with the part the screened file
// adds timed on its own from the same run (made from the run record's decisions, checked against its
// JSON Schema, serialised and written by temp file and rename), so "without" is the run minus that
// part; and the file compressed as a static host or `picks serve` would send it. Run alone with
// `node --import tsx bench/screened.ts`; `npm run bench` calls `runScreenedBench()`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { writeFileAtomic } from "../pipeline/atomic-write.ts";
import { curate } from "../pipeline/curate.ts";
import { buildScreenedDay } from "../pipeline/domain/screened.ts";
import { RANKED_SELECTION } from "../pipeline/domain/selection.ts";
import { assertValidFile } from "../pipeline/publish.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import { createFileSource } from "../pipeline/sources/file-source.ts";
import { median } from "./median.ts";

const DAYS = [
  {
    date: "2026-06-12",
    listing: fileURLToPath(
      new URL(
        "../../shared/fixtures/candidates/listing-2026-06-12-314-rows-250-unique.jsonl",
        import.meta.url,
      ),
    ),
  },
  {
    date: "2026-06-03",
    listing: fileURLToPath(new URL("../../shared/curation/listing-2026-06-03.jsonl", import.meta.url)),
  },
];
const RUNS = Number(process.env.BENCH_SCREENED_RUNS ?? 7);

export interface ScreenedFigures {
  candidates: number;
  /** curate() in process, median of RUNS, the screened file included. */
  curateMs: number;
  /** The screened file's part of it, median of RUNS. */
  screenedMs: number;
  bytes: number;
  gzip: number;
  brotli: number;
}

export async function runScreenedBench(): Promise<ScreenedFigures[]> {
  const rubric = await loadRubric();
  const ranker = await loadRelevanceModel(await newestModelPath());
  const figures: ScreenedFigures[] = [];
  for (const { date, listing } of DAYS) {
    const root = await mkdtemp(join(tmpdir(), "picks-bench-screened-"));
    try {
      const curateTimes: number[] = [];
      const screenedTimes: number[] = [];
      let body = Buffer.alloc(0);
      let candidates = 0;
      for (let run = 0; run < RUNS; run++) {
        const dirs = { outDir: join(root, `public-${run}`), runsDir: join(root, `runs-${run}`) };
        const started = performance.now();
        const result = await curate({
          date,
          source: createFileSource(listing),
          ...dirs,
          rubric,
          selection: RANKED_SELECTION,
          ranker,
          citationsSkipped: "benchmark",
          now: () => new Date("2026-11-21T06:00:00Z"),
        });
        curateTimes.push(performance.now() - started);
        candidates = result.record.candidates.length;
        // The same work curate does for the file, on the same run's decisions and texts.
        const path = join(root, `screened-${run}.json`);
        const part = performance.now();
        const day = buildScreenedDay({
          record: result.record,
          generatedAt: result.snapshot.generated_at,
          texts: new Map(result.candidates.map((candidate) => [candidate.id, candidate])),
        });
        assertValidFile("screened", day, path);
        const text = JSON.stringify(day);
        await writeFileAtomic(path, text);
        screenedTimes.push(performance.now() - part);
        body = Buffer.from(text);
      }
      figures.push({
        candidates,
        curateMs: median(curateTimes),
        screenedMs: median(screenedTimes),
        bytes: body.byteLength,
        gzip: gzipSync(body, { level: 6 }).byteLength,
        brotli: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }).byteLength,
      });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  return figures;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function screenedLines(figures: readonly ScreenedFigures[]): string[] {
  return figures.flatMap((figure) => [
    `curate in process, ${figure.candidates} candidates, median of ${RUNS}: ${figure.curateMs.toFixed(0)} ms with the screened file, ` +
      `about ${(figure.curateMs - figure.screenedMs).toFixed(0)} ms without: it adds ${figure.screenedMs.toFixed(1)} ms ` +
      `(${((figure.screenedMs / figure.curateMs) * 100).toFixed(1)}%)  (target < 50 ms on 250 candidates)`,
    `screened file, ${figure.candidates} candidates: ${kb(figure.bytes)}, gzip ${kb(figure.gzip)}, brotli ${kb(figure.brotli)}  ` +
      "(target <= 150 KB compressed for 320 candidates)",
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of screenedLines(await runScreenedBench())) console.log(line);
}

import { DEFAULT_FIRM_RUBRIC } from "../../pipeline/domain/bench-rubric.ts";
import { type CandidateText, type FirmDay, firmDays } from "../../pipeline/domain/bench-scoring.ts";
import { watchedFigures } from "../../pipeline/domain/bench-tracking.ts";
import type { Citations } from "../../pipeline/domain/citations.ts";
import type { RunRecord } from "../../pipeline/domain/run-record.ts";
import type { BenchStore } from "./bench-store.ts";

/** The citation client's face this job uses (the pipeline's CitationLookup fits it). */
export interface WatchedLookup {
  lookup(arxivIds: readonly string[]): Promise<{ citations: Map<string, Citations>; problems: string[] }>;
}

export interface FirmViewsResult {
  firms: string[];
  /** Distinct watched papers looked up (all firms together). */
  watched: number;
  problems: string[];
}

/**
 * Every firm's view of a published day, written to the store: its picks under its rubric, its hits,
 * and its watched papers' figures. Reads the day's run record (every screened candidate, scored) and
 * the candidates' texts; nothing here writes a public file.
 *
 * Watched papers are looked up in one call of the same citation client as the picks, after them: in
 * the picks' own batch they would be linked to the public picks (`cites_picks`) and so show up in the
 * public snapshots.
 */
export async function buildFirmViews(input: {
  bench: BenchStore;
  record: RunRecord;
  texts: ReadonlyMap<string, CandidateText>;
  citations?: WatchedLookup | undefined;
}): Promise<FirmViewsResult> {
  const { bench, record } = input;
  const firms = await bench.firms();
  const setups = await Promise.all(
    firms.map(async (firm) => ({
      firm,
      watchlist: await bench.watchlist(firm),
      rubric: (await bench.currentRubric(firm)) ?? DEFAULT_FIRM_RUBRIC,
    })),
  );
  const watched = [...new Set(setups.flatMap((setup) => setup.watchlist.papers))];
  let found = new Map<string, Citations>();
  const problems: string[] = [];
  if (input.citations && watched.length > 0) {
    const result = await input.citations.lookup(watched);
    found = result.citations;
    problems.push(...result.problems);
  }
  const views = firmDays({
    date: record.date,
    publicRubricVersion: record.rubric_version,
    screened: record.candidates,
    texts: input.texts,
    firms: setups,
  });
  await Promise.all(
    setups.map(async ({ firm, watchlist }, i) => {
      await bench.setDay(firm, views[i] as FirmDay);
      if (input.citations && watchlist.papers.length > 0) {
        await bench.setTracking(firm, {
          date: record.date,
          papers: watchlist.papers.map((id) => watchedFigures(id, found.get(id))),
        });
      }
    }),
  );
  return { firms, watched: watched.length, problems };
}

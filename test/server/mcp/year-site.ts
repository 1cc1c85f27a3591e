import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { addDays } from "../../../pipeline/domain/calendar.ts";
import { type Pick, toPick } from "../../../pipeline/domain/pick.ts";
import { buildPicksIndex, PICKS_INDEX_FILE, picksIndexLines } from "../../../pipeline/domain/picks-index.ts";
import { compileRubric, scoreWith } from "../../../pipeline/domain/scorer.ts";
import {
  compareScored,
  DEFAULT_SELECTION,
  type ScoredCandidate,
} from "../../../pipeline/domain/selection.ts";
import {
  buildDailySnapshot,
  buildRecent,
  buildStats,
  type DailySnapshot,
} from "../../../pipeline/domain/snapshot.ts";
import { loadRubric } from "../../../pipeline/rubric-file.ts";
import { createFileSource } from "../../../pipeline/sources/file-source.ts";
import { LISTING_250 } from "../../helpers/fixtures.ts";

/** The recorded 250-candidate day scored by the real rubric, best first, each with its published size. */
export async function scoredRealPapers(): Promise<Array<ScoredCandidate & { size: number }>> {
  const rubric = await loadRubric();
  const compiled = compileRubric(rubric);
  const batch = await createFileSource(LISTING_250).load("2026-06-12");
  return batch.candidates
    .map((candidate) => ({ candidate, scores: scoreWith(compiled, candidate) }))
    .sort(compareScored)
    .map((entry) => ({
      ...entry,
      size: JSON.stringify(toPick(entry.candidate, entry.scores, "2026-06-12", 1)).length,
    }));
}

/** A distinct, well-formed id per generated pick: the day's month and day, then its rank. */
function syntheticId(date: string, rank: number, index: number): string {
  const serial = `${String(index % 1000).padStart(3, "0")}${String(rank).padStart(2, "0")}`;
  return `${date.slice(2, 4)}${date.slice(5, 7)}.${serial}`;
}

/**
 * Writes `days` consecutive published days ending at `lastDate` into `{publicDir}/v1`: real papers
 * with their real scores and evidence, `picksPerDay` a day, each under its own id. With `largest`,
 * every day holds the largest published picks, for measuring the biggest answers. The picks index
 * is written after the days as curate writes it, unless `index` is false.
 */
export async function publishYear(options: {
  publicDir: string;
  days: number;
  lastDate: string;
  picksPerDay?: number;
  largest?: boolean;
  index?: boolean;
}): Promise<{ days: DailySnapshot[]; picks: Pick[] }> {
  const rubric = await loadRubric();
  const perDay = options.picksPerDay ?? DEFAULT_SELECTION.max_picks;
  const scored = await scoredRealPapers();
  const pool = options.largest
    ? [...scored].sort((a, b) => b.size - a.size).slice(0, perDay)
    : scored.slice(0, 60);
  const v1 = join(options.publicDir, "v1");
  await mkdir(join(v1, "daily"), { recursive: true });
  const days: DailySnapshot[] = [];
  const bytes = new Map<string, number>();
  for (let index = 0; index < options.days; index++) {
    const date = addDays(options.lastDate, -index);
    const picks = Array.from({ length: perDay }, (_, slot) => {
      const entry = pool[(index * perDay + slot) % pool.length] as ScoredCandidate;
      const id = syntheticId(date, slot + 1, index);
      const pick = toPick({ ...entry.candidate, id }, entry.scores, date, slot + 1);
      return pick;
    });
    const snapshot = buildDailySnapshot({
      date,
      generatedAt: `${date}T06:00:00.000Z`,
      sample: false,
      source: "generated from the recorded listing of 2026-06-12",
      rubricVersion: rubric.version,
      selection: DEFAULT_SELECTION,
      counts: { screened: 250, skipped: 0, duplicates: 0, kept: picks.length },
      picks,
    });
    days.push(snapshot);
    const body = JSON.stringify(snapshot);
    bytes.set(date, Buffer.byteLength(body));
    await writeFile(join(v1, "daily", `${date}.json`), body);
  }
  const generatedAt = `${options.lastDate}T06:00:00.000Z`;
  await writeFile(join(v1, "daily", "latest.json"), JSON.stringify(days[0]));
  await writeFile(join(v1, "recent.json"), JSON.stringify(buildRecent(days, generatedAt)));
  await writeFile(join(v1, "stats.json"), JSON.stringify(buildStats(days, generatedAt, rubric.version)));
  await writeFile(join(v1, "axes.json"), JSON.stringify(rubric));
  if (options.index !== false) {
    await writeFile(join(v1, PICKS_INDEX_FILE), picksIndexLines(buildPicksIndex(days, bytes)));
  }
  return { days, picks: days.flatMap((day) => day.picks) };
}

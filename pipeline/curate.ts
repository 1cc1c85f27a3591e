import { join } from "node:path";
import type { Candidate } from "./domain/candidate.ts";
import { toPick } from "./domain/pick.ts";
import type { Rubric } from "./domain/rubric.ts";
import type { RunRecord, Screened } from "./domain/run-record.ts";
import type { Scores } from "./domain/score.ts";
import { compileRubric, scoreWith } from "./domain/scorer.ts";
import { type SelectionPolicy, selectPicks } from "./domain/selection.ts";
import { buildDailySnapshot, buildRecent, buildStats, type DailySnapshot } from "./domain/snapshot.ts";
import { type PlannedFile, publishFiles, readDailySnapshots } from "./publish.ts";
import type { CandidateSource } from "./sources/source.ts";

export interface CurateOptions {
  date: string;
  source: CandidateSource;
  /** The static site root: snapshots go to `{outDir}/v1/...`. */
  outDir: string;
  /** Where run records go: `{runsDir}/{date}.json`. */
  runsDir: string;
  rubric: Rubric;
  selection: SelectionPolicy;
  now: () => Date;
  onProgress?: (stage: CurateStage, detail: string) => void;
}

export type CurateStage = "gather" | "score" | "select" | "publish";

export interface CurateResult {
  snapshot: DailySnapshot;
  record: RunRecord;
  files: string[];
  /** Existing snapshots that could not be read and were left out of recent.json and stats.json. */
  unreadable: string[];
}

/** The daily job: gather -> score -> select -> publish. Nothing is written unless every file validates. */
export async function curate(options: CurateOptions): Promise<CurateResult> {
  const { date, rubric, selection } = options;
  const progress = options.onProgress ?? (() => {});
  const startedAt = options.now().toISOString();

  progress("gather", `loading candidates from ${options.source.name}`);
  const batch = await options.source.load(date);
  progress("gather", `${batch.candidates.length} candidates, ${batch.skipped.length} skipped`);

  progress("score", `scoring ${batch.candidates.length} candidates`);
  const compiled = compileRubric(rubric);
  const scored = batch.candidates.map((candidate) => ({ candidate, scores: scoreWith(compiled, candidate) }));

  const decisions = selectPicks(scored, selection);
  const byId = new Map<string, { candidate: Candidate; scores: Scores }>(
    scored.map((entry) => [entry.candidate.id, entry]),
  );
  const screened: Screened[] = decisions.map((decision) => {
    const entry = byId.get(decision.id) as { candidate: Candidate; scores: Scores };
    return { ...decision, title: entry.candidate.title, scores: entry.scores };
  });
  const picks = screened
    .filter((entry) => entry.kept && entry.rank !== null)
    .map((entry) => {
      const { candidate, scores } = byId.get(entry.id) as { candidate: Candidate; scores: Scores };
      return toPick(candidate, scores, date, entry.rank as number);
    });
  progress("select", `${picks.length} kept of ${batch.candidates.length}`);

  const generatedAt = options.now().toISOString();
  const counts = {
    screened: batch.candidates.length,
    skipped: batch.skipped.length,
    duplicates: batch.duplicates,
    kept: picks.length,
  };
  const snapshot = buildDailySnapshot({
    date,
    generatedAt,
    sample: batch.sample,
    source: batch.source,
    rubricVersion: rubric.version,
    selection,
    counts,
    picks,
  });

  const v1 = join(options.outDir, "v1");
  const existing = await readDailySnapshots(join(v1, "daily"));
  const days = [...existing.days.filter((day) => day.date !== date), snapshot];
  const newest = days.reduce((a, b) => (a.date >= b.date ? a : b));
  const planned: PlannedFile[] = [
    { path: join(v1, "daily", `${date}.json`), kind: "daily", value: snapshot },
    { path: join(v1, "daily", "latest.json"), kind: "daily", value: newest },
    { path: join(v1, "recent.json"), kind: "recent", value: buildRecent(days, generatedAt) },
    { path: join(v1, "stats.json"), kind: "stats", value: buildStats(days, generatedAt, rubric.version) },
    { path: join(v1, "axes.json"), kind: "axes", value: rubric },
  ];
  const record: RunRecord = {
    date,
    started_at: startedAt,
    finished_at: options.now().toISOString(),
    source: batch.source,
    sample: batch.sample,
    rubric_version: rubric.version,
    selection,
    counts,
    skipped: batch.skipped,
    candidates: screened,
    files: planned.map((file) => file.path),
  };
  progress("publish", `writing ${planned.length} files to ${v1}`);
  await publishFiles([
    ...planned,
    { path: join(options.runsDir, `${date}.json`), kind: "run", value: record },
  ]);
  return { snapshot, record, files: record.files, unreadable: existing.unreadable };
}

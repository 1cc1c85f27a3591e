// The personal ranking's costs, in process: ranking a 320-candidate day for one reader, refitting a
// 1,000-item profile (from its rows, and its rows from their texts), the lists of 10,000 profiles for a day's delivery, and the store's size for full
// free profiles (measured on a SQLite file of a sample of them, per profile). Run alone with
// `node --import tsx bench/readers.ts`; `npm run bench` calls `runReadersBench()`.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SparseRow } from "../pipeline/domain/logistic-regression.ts";
import { indexDay, type RankedCandidate, rankForReader } from "../pipeline/domain/personal-ranking.ts";
import {
  compileReaderModel,
  fitReaderModel,
  type ProfilePaper,
  READER_MODEL_SETTINGS,
  readerBackground,
  rowOf,
} from "../pipeline/domain/reader-model.ts";
import { PROFILE_BOUNDS } from "../pipeline/domain/reader-profile.ts";
import type { SimPaper } from "../pipeline/domain/reader-simulation.ts";
import { readSimDays } from "../pipeline/reader-days.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { writeProfile } from "../server/readers/reader-store.ts";
import { createSqliteStore } from "../server/store/sqlite-store.ts";
import { LABELLED_DAYS } from "../test/helpers/curation.ts";
import { median } from "./median.ts";
import { simProfile } from "./sim-profile.ts";

export interface ReadersFigures {
  candidates: number;
  rankMs: { median: number; best: number };
  refitMs: { median: number; best: number; rowsMs: number; backgroundMs: number; cachedRowsMedian: number };
  deliveries: { profiles: number; seconds: number; cpuSeconds: number; unexplainedSeconds: number };
  store: {
    sampled: number;
    bytesPerProfile: number;
    projectedMb: number;
    modelBytes: number;
    profileJsonBytes: number;
  };
}

function timed<T>(times: number, run: () => T): { median: number; best: number; last: T } {
  const all: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    last = run();
    all.push(performance.now() - started);
  }
  return { median: median(all), best: Math.min(...all), last: last as T };
}

export async function runReadersBench(
  options: { profiles?: number; sampled?: number } = {},
): Promise<ReadersFigures> {
  const { model, vocabulary } = await loadRelevanceModel(await newestModelPath());
  const days = await readSimDays(
    LABELLED_DAYS.map((day) => day.labels),
    LABELLED_DAYS.map((day) => day.listing),
  );
  const day = days.find((entry) => entry.date === "2026-06-03") ?? (days[0] as (typeof days)[0]);
  const others = days.filter((entry) => entry !== day);
  const features = model.features;
  const size = vocabulary.idf.length;
  const rowOfPaper = (paper: SimPaper) => rowOf(paper, features, vocabulary);
  const candidates: RankedCandidate[] = day.papers.map((paper, i) => ({
    arxiv_id: paper.id,
    title: paper.title,
    summary: paper.summary,
    authors: paper.authors,
    categories: paper.categories,
    rank_score: 1 - i / day.papers.length,
    must_read: 0.6 * (1 - i / day.papers.length) ** 4,
    on_topic: 1 - i / day.papers.length,
  }));
  // The day's rows and postings are made once and shared by every reader (the server keeps them per day).
  const rows = day.papers.map(rowOfPaper);
  const index = indexDay(candidates, rows);
  const pool = others.flatMap((entry) => entry.papers);
  // The background is the newest screened papers, its sums made once a day; the profiles like older ones.
  const newest = pool
    .slice(-READER_MODEL_SETTINGS.background * 2)
    .reverse()
    .map((paper) => ({ arxiv_id: paper.id, row: rowOfPaper(paper) }));
  const backgroundTimed = timed(5, () => readerBackground(newest, size));
  const background = backgroundTimed.last;
  const profilePaper = (paper: SimPaper, row: SparseRow = rowOfPaper(paper)): ProfilePaper => ({
    key: `arxiv:${paper.id}`,
    arxiv_id: paper.id,
    title: paper.title,
    row,
  });
  const refitOf = (library: ProfilePaper[], liked: ProfilePaper[] = [], disliked: ProfilePaper[] = []) => {
    const fitted = fitReaderModel({
      profileVersion: 1,
      relevanceVersion: model.version,
      features: size,
      library,
      liked,
      disliked,
      background,
    });
    if (!fitted) throw new Error("nothing to fit");
    return fitted;
  };

  const library20 = pool
    .filter((paper) => paper.group === "governance")
    .slice(0, 20)
    .map((paper) => profilePaper(paper));
  const reader = compileReaderModel(refitOf(library20), size);
  const rank = timed(200, () =>
    rankForReader({
      candidates,
      day: index,
      model: reader,
      follows: { authors: [], phrases: [] },
      explain: 10,
    }),
  );

  // A 1,000-item profile: its rows read from the texts the first time (the server keeps them after, by
  // text), then the fit from the rows against the day's background sums.
  const thousand = pool.slice(0, 1_000);
  const rowsStarted = performance.now();
  const liked = thousand.map((paper) => profilePaper(paper));
  const rowsMs = performance.now() - rowsStarted;
  const refit = timed(15, () => refitOf(liked));
  // The usual change: one more item, whose text alone is read; the others' rows are kept.
  const extra = pool[1_000] as SimPaper;
  const plusOne = timed(15, () => refitOf([...liked, profilePaper(extra)]));

  // A day's delivery: every profile's list, one after another as one process would. Each profile's
  // stored model is parsed from its JSON and compiled, ranked on the day's shared index, its first ten
  // explained and written as JSON.
  const profiles = options.profiles ?? 10_000;
  const stored = [5, 20, 60, 100, 300].map((count, k) =>
    JSON.stringify(
      refitOf(
        pool
          .filter((_, i) => i % 7 === k)
          .slice(0, count)
          .map((p) => profilePaper(p)),
      ),
    ),
  );
  // Without why_for_you's nearest papers, as the webhook delivery asks for its lists.
  const unexplainedStarted = performance.now();
  for (let i = 0; i < profiles; i++) {
    const compiled = compileReaderModel(JSON.parse(stored[i % stored.length] as string), size);
    rankForReader({ candidates, day: index, model: compiled, follows: { authors: [], phrases: [] } });
  }
  const unexplainedSeconds = (performance.now() - unexplainedStarted) / 1000;
  const cpu = process.cpuUsage();
  const deliveryStarted = performance.now();
  let bytes = 0;
  for (let i = 0; i < profiles; i++) {
    const compiled = compileReaderModel(JSON.parse(stored[i % stored.length] as string), size);
    const items = rankForReader({
      candidates,
      day: index,
      model: compiled,
      follows: { authors: [], phrases: [] },
      explain: 10,
    });
    bytes += JSON.stringify(items.slice(0, 10)).length;
  }
  const deliverySeconds = (performance.now() - deliveryStarted) / 1000;
  const deliveryCpu = process.cpuUsage(cpu);
  if (bytes === 0) throw new Error("no list was made");

  // Full free profiles: 100 library items with their abstracts, 500 ratings, their model.
  const sampled = options.sampled ?? 200;
  const dir = await mkdtemp(join(tmpdir(), "picks-readers-"));
  const path = join(dir, "picks.db");
  const store = createSqliteStore({ path });
  try {
    const full = pool.slice(0, PROFILE_BOUNDS.free.library);
    const rated = pool.slice(100, 100 + PROFILE_BOUNDS.free.ratings);
    const fullModel = refitOf(
      full.map((paper) => profilePaper(paper)),
      rated.filter((_, i) => i % 3 !== 0).map((paper) => profilePaper(paper)),
      rated.filter((_, i) => i % 3 === 0).map((paper) => profilePaper(paper)),
    );
    const profile = simProfile(
      full,
      Object.fromEntries(rated.map((paper, i) => [paper.id, i % 3 === 0 ? -1 : 1])),
      { authors: ["Ada Lovelace"], phrases: ["audit trail"] },
    );
    const emptySize = (await stat(path)).size;
    for (let i = 0; i < sampled; i++)
      await writeProfile(store, `key_${i.toString(16).padStart(16, "0")}`, profile, fullModel);
    await store.close();
    const size = (await stat(path)).size + (await stat(`${path}-wal`).catch(() => ({ size: 0 }))).size;
    const bytesPerProfile = (size - emptySize) / sampled;
    return {
      candidates: candidates.length,
      rankMs: { median: rank.median, best: rank.best },
      refitMs: {
        median: refit.median,
        best: refit.best,
        rowsMs,
        backgroundMs: backgroundTimed.median,
        cachedRowsMedian: plusOne.median,
      },
      deliveries: {
        profiles,
        seconds: deliverySeconds,
        cpuSeconds: (deliveryCpu.user + deliveryCpu.system) / 1e6,
        unexplainedSeconds,
      },
      store: {
        sampled,
        bytesPerProfile,
        projectedMb: (bytesPerProfile * 10_000) / 1024 / 1024,
        modelBytes: JSON.stringify(fullModel).length,
        profileJsonBytes: JSON.stringify(profile).length,
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function readersLines(figures: ReadersFigures): string[] {
  const f = (value: number) => value.toFixed(value < 10 ? 2 : 1);
  return [
    `personal ranking of a ${figures.candidates}-candidate day for one reader: median ${f(figures.rankMs.median)} ms, best ${f(figures.rankMs.best)} ms  (target < 1 ms)`,
    `refit of a 1,000-item profile from its rows: median ${f(figures.refitMs.median)} ms, best ${f(figures.refitMs.best)} ms; with one more item (its text read, the others' rows kept): median ${f(figures.refitMs.cachedRowsMedian)} ms; reading all 1,000 rows from their texts the first time: ${f(figures.refitMs.rowsMs)} ms; the day's background sums (once a day, shared): ${f(figures.refitMs.backgroundMs)} ms  (target < 50 ms)`,
    `${figures.deliveries.profiles} profiles' lists of the day (stored model parsed and compiled, ranked, first ten explained as JSON): ${f(figures.deliveries.seconds)} s in one process (${f(figures.deliveries.cpuSeconds)} s of CPU); without the nearest papers, as webhooks ask: ${f(figures.deliveries.unexplainedSeconds)} s  (target: within 10 s of the publish)`,
    `store: a full free profile (100 items with abstracts, ${Math.round(figures.store.profileJsonBytes / 1024)} KB as JSON, stored deflated; 500 ratings; its model of ${Math.round(figures.store.modelBytes / 1024)} KB) takes ${Math.round(figures.store.bytesPerProfile / 1024)} KB of SQLite file (${figures.store.sampled} written); 10,000 would take about ${Math.round(figures.store.projectedMb)} MB`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of readersLines(await runReadersBench())) console.log(line);
}

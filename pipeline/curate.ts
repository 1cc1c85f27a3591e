import { join } from "node:path";
import type { CitationLookup } from "./citations/citation-lookup.ts";
import { enrichPicks } from "./citations/enrich-picks.ts";
import type { Candidate } from "./domain/candidate.ts";
import { assembleDay } from "./domain/day-assembly.ts";
import { toPick } from "./domain/pick.ts";
import { buildPicksIndex, PICKS_INDEX_FILE, picksIndexLines } from "./domain/picks-index.ts";
import { rankerCard } from "./domain/ranker-card.ts";
import type { CompiledRelevance } from "./domain/relevance-model.ts";
import type { Rubric } from "./domain/rubric.ts";
import type { HttpCounts, RunRecord } from "./domain/run-record.ts";
import { buildScreenedDay, type ScreenedDay } from "./domain/screened.ts";
import type { ScoredCandidate, SelectionPolicy } from "./domain/selection.ts";
import type { DailySnapshot } from "./domain/snapshot.ts";
import { planFeeds, writeFeeds } from "./feeds.ts";
import { type PlannedFile, publishFiles, readDailySnapshots } from "./publish.ts";
import { type CandidateScorer, screenCandidates } from "./screen.ts";
import { buildSearchIndex } from "./search-index.ts";
import { DEFAULT_SITE_URL } from "./site-url.ts";
import type { CandidateSource } from "./sources/source.ts";

const NO_HTTP: HttpCounts = {
  requests: 0,
  retries: 0,
  failures: 0,
  politeness_wait_ms: 0,
  backoff_wait_ms: 0,
  by_upstream: {},
};

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
  /** Scores instead of the rules scorer (the language-model judge); absent: the rules scorer. */
  scorer?: CandidateScorer;
  /** Ranks by the relevance model; absent: by the rubric's total (`--ranker rules`). */
  ranker?: CompiledRelevance;
  /** Citation-graph lookups for the picks and the last 30 days' picks; absent: picks carry `citations: null`. */
  citations?: CitationLookup;
  /** Why citations are not looked up when `citations` is absent, for the run record. */
  citationsSkipped?: string;
  /** The outbound HTTP client's counts, copied into the run record. */
  httpCounts?: () => HttpCounts;
  /** The site's base URL for the feeds' links, without a trailing slash; the CLI passes PUBLIC_BASE_URL. */
  siteUrl?: string;
  /**
   * The snapshots' `generated_at`; default now. A backfilled day is dated by its announcement, so that
   * its feed entries are not news and a rerun writes the same bytes.
   */
  generatedAt?: Date;
  /** Marks the run record of a past day curated later (`picks backfill`). */
  backfilled?: boolean;
}

export type CurateStage = "gather" | "score" | "select" | "enrich" | "publish";

export interface CurateResult {
  snapshot: DailySnapshot;
  /** The day's candidates as the source gave them: the texts the run record does not keep. */
  candidates: Candidate[];
  record: RunRecord;
  /** The day's screened file: every candidate for readers. */
  screened: ScreenedDay;
  files: string[];
  /** Existing snapshots that could not be read and were left out of recent.json and stats.json. */
  unreadable: string[];
}

/** One candidate a line, in the listing format `--source file:` and the labels files read. */
function listingLines(candidates: readonly Candidate[]): string {
  return candidates
    .map(({ id, title, summary, authors, categories }) =>
      JSON.stringify({ id, title, summary, authors, categories }),
    )
    .map((line) => `${line}\n`)
    .join("");
}

/**
 * The daily job: gather -> score -> select -> enrich (reads), assemble the day (pure), publish. Nothing is written unless every file
 * validates; citation failures become `missing` citation data, never a failed run.
 */
export async function curate(options: CurateOptions): Promise<CurateResult> {
  const { date, rubric, selection } = options;
  const progress = options.onProgress ?? (() => {});
  const startedAt = options.now().toISOString();

  progress("gather", `loading candidates from ${options.source.name}`);
  const batch = await options.source.load(date);
  progress("gather", `${batch.candidates.length} candidates, ${batch.skipped.length} skipped`);

  progress(
    "score",
    `scoring ${batch.candidates.length} candidates with ${options.scorer ? "the judge" : "the rules"}`,
  );
  const { scored, screened, scoring } = await screenCandidates({
    candidates: batch.candidates,
    rubric,
    selection,
    ...(options.scorer ? { scorer: options.scorer } : {}),
    ...(options.ranker ? { ranker: options.ranker } : {}),
    progress: (detail) => progress("score", detail),
  });
  const byId = new Map<string, ScoredCandidate>(scored.map((entry) => [entry.candidate.id, entry]));
  const selected = screened
    .filter((entry) => entry.kept && entry.rank !== null)
    .map((entry) => {
      const { candidate, scores, ranking } = byId.get(entry.id) as ScoredCandidate;
      return toPick(candidate, scores, date, entry.rank as number, ranking);
    });
  progress("select", `${selected.length} kept of ${batch.candidates.length}`);

  const v1 = join(options.outDir, "v1");
  const existing = await readDailySnapshots(join(v1, "daily"));
  progress("enrich", options.citations ? "looking up citations" : "citations skipped");
  const enriched = await enrichPicks({
    date,
    picks: selected,
    days: existing.days,
    lookup: options.citations,
    skipped: options.citationsSkipped ?? "no citation index configured",
  });
  if (enriched.run.status === "done") {
    const { found_semantic_scholar: s2, found_openalex: openAlex, missing } = enriched.run;
    progress(
      "enrich",
      `${s2 + openAlex} found (${s2} Semantic Scholar, ${openAlex} OpenAlex), ${missing} missing`,
    );
  }

  const generatedAt = (options.generatedAt ?? options.now()).toISOString();
  const day = assembleDay({
    date,
    generatedAt,
    batch,
    rubric,
    selection,
    picks: enriched.picks,
    published: existing.days,
    refreshed: enriched.refreshedDays,
  });
  const { snapshot, counts, days } = day;
  const ranker = {
    name: options.ranker ? ("model" as const) : ("rules" as const),
    model_version: options.ranker?.model.version ?? null,
  };
  // Every candidate for readers, from the same decisions the run record keeps; checked with the day's
  // files, so a screened file that fails its schema stops the run before the pointer moves.
  const screenedDay = buildScreenedDay({
    record: { date, rubric_version: rubric.version, selection, ranker, candidates: screened },
    generatedAt,
    texts: new Map(batch.candidates.map((candidate) => [candidate.id, candidate])),
  });
  const planned: PlannedFile[] = [
    { path: join(v1, "daily", `${date}.json`), kind: "daily", value: snapshot },
    { path: join(v1, "screened", `${date}.json`), kind: "screened", value: screenedDay },
    ...enriched.refreshedDays.map(
      (refreshed): PlannedFile => ({
        path: join(v1, "daily", `${refreshed.date}.json`),
        kind: "daily",
        value: refreshed,
      }),
    ),
    { path: join(v1, "daily", "latest.json"), kind: "daily", value: day.latest },
    { path: join(v1, "recent.json"), kind: "recent", value: day.recent },
    { path: join(v1, "stats.json"), kind: "stats", value: day.stats },
    { path: join(v1, "axes.json"), kind: "axes", value: rubric },
    { path: join(v1, "ranker.json"), kind: "ranker", value: rankerCard(options.ranker?.model) },
  ];
  // Built and checked before anything is written, so a bad feed fails the run like a bad snapshot.
  const feeds = planFeeds({
    days,
    outDir: options.outDir,
    baseUrl: options.siteUrl ?? DEFAULT_SITE_URL,
    rubric,
  });
  // Every day's picks as list items, for a server to start from instead of parsing every day in full.
  // Each day's size is that of the file as this run leaves it, so a server can tell it is unchanged.
  const bytes = new Map(existing.bytes);
  for (const file of planned) {
    if (file.kind === "daily" && file.path !== join(v1, "daily", "latest.json")) {
      const written = file.value as DailySnapshot;
      bytes.set(written.date, Buffer.byteLength(JSON.stringify(written)));
    }
  }
  const picksIndexPath = join(v1, PICKS_INDEX_FILE);
  const picksIndex = picksIndexLines(buildPicksIndex(days, bytes));
  // The archive's search index, from the days already in memory: one file, fetched by the page only
  // when its search box is used.
  const index = buildSearchIndex(days, generatedAt);
  const searchPath = join(v1, "search-index.json");
  // The day's candidates as screened, beside the run record: what `picks label` shows the operator and
  // what `picks train` later reads the labelled papers' text from (the record keeps titles only).
  const listingPath = join(options.runsDir, `${date}.listing.jsonl`);
  const record: RunRecord = {
    date,
    started_at: startedAt,
    finished_at: options.now().toISOString(),
    ...(options.backfilled ? { backfilled: true } : {}),
    source: batch.source,
    sample: batch.sample,
    rubric_version: rubric.version,
    selection,
    counts,
    skipped: batch.skipped,
    candidates: screened,
    files: [
      ...planned.map((file) => file.path),
      listingPath,
      picksIndexPath,
      searchPath,
      ...feeds.map((feed) => feed.path),
    ],
    source_notes: batch.notes ?? [],
    scoring,
    ranker,
    citations: enriched.run,
    http: options.httpCounts?.() ?? NO_HTTP,
    search_index: {
      path: searchPath,
      documents: index.documents,
      bytes: index.bytes,
      gzip_bytes: index.gzipBytes,
    },
  };
  progress("publish", `writing ${planned.length} files to ${v1}, then the feeds`);
  await publishFiles(
    [...planned, { path: join(options.runsDir, `${date}.json`), kind: "run", value: record }],
    [
      // After the day files it describes: a day newer than the index is read in full by a server.
      { path: picksIndexPath, content: picksIndex },
      { path: searchPath, content: index.content },
      { path: listingPath, content: listingLines(batch.candidates) },
    ],
  );
  // After the snapshots: a reader that follows a feed entry finds its day already published.
  await writeFeeds(feeds);
  return {
    snapshot,
    candidates: batch.candidates,
    record,
    screened: screenedDay,
    files: record.files,
    unreadable: existing.unreadable,
  };
}

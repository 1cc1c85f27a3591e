import { basename } from "node:path";
import type { Command } from "commander";
import type { CitationLookup } from "../pipeline/citations/citation-lookup.ts";
import type { CurateResult } from "../pipeline/curate.ts";
import { type DailyJobOptions, type DailyPublish, runDailyJob } from "../pipeline/daily-job.ts";
import { dayOf } from "../pipeline/domain/calendar.ts";
import type { CompiledRelevance } from "../pipeline/domain/relevance-model.ts";
import type { HttpCounts } from "../pipeline/domain/run-record.ts";
import type { SelectionPolicy } from "../pipeline/domain/selection.ts";
import type { BucketTarget } from "../pipeline/origin/open-origin.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import type { CandidateScorer } from "../pipeline/screen.ts";
import { siteUrlFromEnv } from "../pipeline/site-url.ts";
import { DEFAULT_CATEGORIES } from "../pipeline/sources/arxiv-source.ts";
import { createFileSource } from "../pipeline/sources/file-source.ts";
import { createSampleSource, sampleDays } from "../pipeline/sources/sample-source.ts";
import type { CandidateSource } from "../pipeline/sources/source.ts";
import { type DayNews, recordUnannounced, type ServersState, tellServers } from "../server/published-day.ts";
import type { ArxivLookup } from "../server/readers/pending-lookup.ts";
import { publishOption, publishTargetOf } from "./bucket-option.ts";
import { createLiveSetup, type LiveSetup } from "./curate-live.ts";
import { checkMetricsFile, failuresOf, metricsFileOption, writeRunMetrics } from "./metrics-file.ts";
import { parseDateOption } from "./options.ts";
import { createOutput, type Output, UsageError } from "./output.ts";
import { DEFAULT_PUBLIC_DIR, DEFAULT_RUNS_DIR, PROJECT_ROOT } from "./paths.ts";
import { printPublish, publishSettings } from "./publish-command.ts";
import { addScoringOptions, rankerFrom, type ScoringFlags, selectionFrom } from "./scoring-options.ts";

interface CurateFlags extends ScoringFlags {
  date?: string;
  source: string;
  categories?: string[];
  citations: boolean;
  out: string;
  runs: string;
  publish?: string;
  metricsFile?: string;
  json: boolean;
}

function sourceKind(flag: string): "arxiv" | "sample" | "file" {
  if (flag === "arxiv" || flag === "sample") return flag;
  if (flag.startsWith("file:") && flag.length > 5) return "file";
  throw new UsageError(`Expected \`--source\` to be \`arxiv\`, \`sample\` or \`file:PATH\`, got \`${flag}\``);
}

function sourceFrom(flag: string, live: LiveSetup): CandidateSource {
  if (flag === "sample") return createSampleSource();
  if (flag.startsWith("file:")) return createFileSource(flag.slice(5));
  if (!live.arxiv) throw new Error("the arXiv source was not set up");
  return live.arxiv;
}

const CATEGORY = /^[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]+(?:-[A-Za-z]+)*)?$/;

/** `cs.AI,cs.LG` or `cs.AI+cs.LG` or `"cs.AI cs.LG"`: arXiv categories or whole archives. */
export function parseCategories(value: string): string[] {
  const list = value.split(/[\s,+]+/).filter(Boolean);
  const bad = list.find((category) => !CATEGORY.test(category));
  if (list.length === 0 || bad !== undefined) {
    throw new UsageError(
      `Expected \`--categories\` to be arXiv categories such as cs.AI,cs.LG, got \`${value}\``,
    );
  }
  return [...new Set(list)];
}

/** The day to curate when `--date` is absent: the newest sample day, a date in the file name, or today. */
async function defaultDate(flag: string, now: Date): Promise<string> {
  if (flag === "sample") return (await sampleDays()).at(-1) ?? dayOf(now);
  const named = /\d{4}-\d{2}-\d{2}/.exec(basename(flag))?.[0];
  return named ?? dayOf(now);
}

export function printSummary(out: Output, result: CurateResult): void {
  const { snapshot, record } = result;
  const { counts, selection } = snapshot;
  out.line(
    `${snapshot.date}${snapshot.sample ? " (sample)" : ""}: screened ${counts.screened}, kept ${counts.kept}` +
      ` (threshold: total >= ${selection.min_total}, REG FIT >= ${selection.min_reg_fit}, at most ${selection.max_picks})` +
      (counts.skipped > 0 ? `, skipped ${counts.skipped}` : "") +
      (counts.duplicates > 0 ? `, ${counts.duplicates} repeated ids counted once` : ""),
  );
  const ranker = record.ranker?.model_version
    ? `relevance model ${record.ranker.model_version}`
    : "the rubric's total";
  out.line(`  ranked by ${ranker}`);
  for (const pick of snapshot.picks) {
    const relevance = pick.relevance
      ? `  relevance ${pick.relevance.on_topic.toFixed(2)}/${pick.relevance.top.toFixed(2)}`
      : "";
    out.line(
      `  ${pick.rank}. ${pick.arxiv_id}  total ${pick.scores.total}/45  REG FIT ${pick.scores.reg_fit.score}${relevance}  ${pick.title}`,
    );
  }
  const { citations, scoring, http } = record;
  const illustrative = snapshot.picks.some(
    (pick) => pick.citations?.status === "found" && pick.citations.illustrative !== undefined,
  );
  if (citations.status === "done" && illustrative) {
    out.line(
      `  citations: the sample's illustrative figures for ${citations.papers} papers, replayed, not looked up`,
    );
  } else if (citations.status === "done") {
    out.line(
      `  citations: ${citations.found_semantic_scholar} from Semantic Scholar, ${citations.found_openalex} from ` +
        `OpenAlex, ${citations.missing} missing, of ${citations.papers} papers` +
        (citations.refreshed_days.length > 0
          ? ` (refreshed ${citations.refreshed_days.length} earlier days)`
          : ""),
    );
    for (const problem of citations.problems) out.line(`  warning: ${problem}`);
  } else out.line(`  citations skipped: ${citations.reason}`);
  if (scoring.scorer === "llm") {
    const cost =
      scoring.usage.cost_usd === null ? "cost not priced" : `$${scoring.usage.cost_usd.toFixed(4)}`;
    out.line(
      `  judge ${scoring.model}: ${scoring.llm_scored} scored (${scoring.cache_hits} cached), ` +
        `${scoring.fallbacks.length} fell back to the rules, ${scoring.usage.prompt_tokens}+` +
        `${scoring.usage.completion_tokens} tokens, ${cost}`,
    );
  }
  if (http.requests > 0) {
    out.line(`  http: ${http.requests} requests, ${http.retries} retries, ${http.failures} failures`);
  }
  for (const path of result.unreadable) out.line(`  warning: left out unreadable snapshot ${path}`);
  out.json({
    date: record.date,
    counts,
    selection,
    picks: snapshot.picks,
    files: result.files,
    citations,
    scoring,
    http,
  });
}

export interface CurateJobOptions {
  date: string;
  source: CandidateSource;
  outDir: string;
  runsDir: string;
  selection: SelectionPolicy;
  out: Output;
  /** The language-model judge; absent: the rules scorer. */
  scorer?: CandidateScorer;
  /** The relevance model; absent: the rubric's total ranks. */
  ranker?: CompiledRelevance;
  /** Citation lookups; absent: skipped for the reason in `citationsSkipped`. */
  citations?: CitationLookup;
  citationsSkipped?: string;
  httpCounts?: () => HttpCounts;
  /** Build the Bench-as-a-Service firms' views of the day after publishing it; default true. */
  firmViews?: boolean;
  /**
   * The servers' webhooks: `announce` queues the day's `daily.published` after publishing it (what
   * `picks curate` does); `quiet` records the day as announced before writing it, so nobody announces
   * it (an import of history); absent: the servers' store is left alone.
   */
  webhooks?: "announce" | "quiet";
  /** Where the servers' store is configured; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The bucket the folder is published to after the day is written, before anything announces it. */
  publishTo?: BucketTarget;
  /**
   * With `announce`: the readers' pending library items are completed before the announcement, those
   * not among the screened papers asked of arXiv with this lookup (null: offline, not asked).
   */
  arxivLookup?: ArxivLookup | null;
}

/** Where `picks publish`, curate and backfill publish to, reporting through `out`. */
export const dailyPublish = (to: BucketTarget, out: Output, env: NodeJS.ProcessEnv): DailyPublish => ({
  to,
  ...publishSettings(out, env),
});

/**
 * The daily job's options on this machine, but for its day and source: the rubric, the clock and the
 * site; progress, the summary and the publish printed through `out`; the servers told of the day
 * through their store (server/published-day.ts).
 */
export async function dailyJobSettings(
  options: Omit<CurateJobOptions, "date" | "source">,
): Promise<Omit<DailyJobOptions, "date" | "source">> {
  const env = options.env ?? process.env;
  const { out } = options;
  let relevance: Promise<CompiledRelevance | null> | undefined;
  const servers: ServersState = {
    env,
    rootDir: PROJECT_ROOT,
    siteUrl: siteUrlFromEnv(env),
    publicDir: options.outDir,
    // The model `picks serve` reads its readers' papers with, read once if at all; without it, lists
    // keep the global order.
    relevance: () => {
      relevance ??= newestModelPath()
        .then(loadRelevanceModel)
        .catch((error: unknown) => {
          out.progress(`readers: ${(error as Error).message}; for_you lists are in the global order`);
          return null;
        });
      return relevance;
    },
  };
  return {
    outDir: options.outDir,
    runsDir: options.runsDir,
    rubric: await loadRubric(),
    selection: options.selection,
    now: () => new Date(),
    siteUrl: servers.siteUrl,
    onProgress: (stage, message) => out.progress(`${stage}: ${message}`),
    scorer: options.scorer,
    ranker: options.ranker,
    citations: options.citations,
    citationsSkipped: options.citationsSkipped,
    httpCounts: options.httpCounts,
    publish: options.publishTo && dailyPublish(options.publishTo, out, env),
    beforeWrite:
      options.webhooks === "quiet"
        ? async (date) => {
            if (await recordUnannounced(date, servers))
              out.progress(`webhooks: ${date} recorded as published without an announcement`);
          }
        : undefined,
    onPulled: (where, days) => out.line(`${where}: copied ${days.length} published days the folder lacked`),
    onWritten: (written) => printSummary(out, written),
    onPublished: (published) => printPublish(out, published),
    afterPublish: async (written) => {
      const firmViews = options.firmViews !== false;
      const announce = options.webhooks === "announce";
      if (!firmViews && !announce) return;
      const pending = announce
        ? { lookup: options.arxivLookup ?? null, publicDir: options.outDir }
        : undefined;
      const news = await tellServers(written, servers, {
        firmViews,
        announce,
        citations: options.citations,
        pending,
      });
      printFirmViews(out, news.firmViews);
      printPending(out, news.pending);
      printAnnounced(out, written.snapshot.date, news.announced);
    },
  };
}

/** Runs one day's daily job (pipeline/daily-job.ts) with this machine's settings, printing as it goes. */
export async function runCurate(options: CurateJobOptions): Promise<CurateResult> {
  const settings = await dailyJobSettings(options);
  const { result } = await runDailyJob({ ...settings, date: options.date, source: options.source });
  return result;
}

/**
 * The firms' views of the day: a firm's view failing leaves the public day as it is (and the exit
 * code 1).
 */
function printFirmViews(out: Output, views: DayNews["firmViews"]): void {
  if (views instanceof Error) {
    process.stderr.write(`picks: warning: the bench firms' views were not stored: ${views.message}\n`);
    process.exitCode = 1;
    return;
  }
  if (views === null) return;
  if (views.firms.length > 0) {
    out.line(
      `  bench: views of ${views.firms.length} firm(s) stored, ${views.watched} watched papers looked up`,
    );
  }
  for (const problem of views.problems) out.line(`  warning: bench citations: ${problem}`);
}

/** The readers' pending library items: a failure never fails the curation (they wait a day). */
function printPending(out: Output, pending: DayNews["pending"]): void {
  if (pending instanceof Error) {
    out.line(`  warning: readers: pending library items were not completed: ${pending.message}`);
  } else if (pending && pending.profiles > 0) {
    out.line(
      `  readers: ${pending.profiles} profiles with pending items, ${pending.completed} completed and refitted; ` +
        `${pending.screened} ids found among the screened papers, ${pending.asked} asked of arXiv ` +
        `(${pending.found} found, ${pending.unknown} unknown, ${pending.failed} failed)`,
    );
  }
}

/** The day's `daily.published`: a failure to queue it never fails the curation. */
function printAnnounced(out: Output, date: string, announced: DayNews["announced"]): void {
  if (announced instanceof Error) {
    out.progress(`webhooks: could not queue daily.published for ${date}: ${announced.message}`);
  } else if (announced === true) out.progress(`webhooks: daily.published queued for ${date}`);
}

// Adds where a curated day is written, published and reported, as curate and backfill both take it.
export function addDayOutputOptions(command: Command): Command {
  return command
    .option("--out <dir>", "static site root; snapshots go to <dir>/v1", DEFAULT_PUBLIC_DIR)
    .option("--runs <dir>", "where run records go", DEFAULT_RUNS_DIR)
    .addOption(publishOption())
    .addOption(metricsFileOption())
    .option("--json", "print the result as JSON", false);
}

export function registerCurate(program: Command): void {
  const command = program
    .command("curate")
    .description(
      "screen one announcement day, score every candidate, keep the picks and publish the snapshots",
    )
    .option(
      "--date <YYYY-MM-DD>",
      "the announcement day (default: the day the arXiv listing holds, the newest sample day, or a date in the file name)",
      parseDateOption,
    )
    .option(
      "--source <source>",
      "where candidates come from: `arxiv` (the live listing), `sample` (offline) or `file:PATH` (JSON Lines or JSON)",
      "arxiv",
    )
    .option(
      "--categories <list>",
      `arXiv categories for --source arxiv (default: ${DEFAULT_CATEGORIES.join(",")})`,
      parseCategories,
    )
    .option("--no-citations", "do not look up citation figures");
  addScoringOptions(command);
  addDayOutputOptions(command).action(curateDay);
}

/** `picks curate`: one day from its source, published, with its run metrics when asked. */
async function curateDay(flags: CurateFlags): Promise<void> {
  const metricsFile = checkMetricsFile(flags.metricsFile);
  const startedAt = Date.now();
  const out = createOutput({ json: flags.json });
  const kind = sourceKind(flags.source);
  if (flags.categories && kind !== "arxiv")
    throw new UsageError("`--categories` applies only to `--source arxiv`");
  const publishTo = publishTargetOf(flags.publish, process.env);
  let live: LiveSetup | undefined;
  let result: CurateResult | undefined;
  try {
    // Before any request: a missing or broken model stops the run with nothing published.
    const ranker = await rankerFrom(flags);
    live = createLiveSetup({
      source: kind,
      categories: flags.categories ?? DEFAULT_CATEGORIES,
      citations: flags.citations,
      judge: flags.judge,
      env: process.env,
    });
    const source = sourceFrom(flags.source, live);
    if (live.arxiv && !flags.date) out.progress("gather: reading the arXiv listing to learn its day");
    const date =
      flags.date ?? (live.arxiv ? await live.arxiv.latestDay() : await defaultDate(flags.source, new Date()));
    const client = live.client;
    result = await runCurate({
      date,
      source,
      outDir: flags.out,
      runsDir: flags.runs,
      selection: selectionFrom(flags),
      out,
      ...(live.scorer ? { scorer: live.scorer } : {}),
      ...(ranker ? { ranker } : {}),
      ...(live.citations ? { citations: live.citations } : {}),
      citationsSkipped: live.citationsSkipped,
      ...(client ? { httpCounts: () => client.counts() } : {}),
      webhooks: "announce",
      ...(publishTo ? { publishTo } : {}),
      arxivLookup: live.arxivLookup ?? null,
    });
  } finally {
    if (metricsFile) {
      const finishedAt = Date.now();
      await writeRunMetrics(metricsFile, {
        command: "curate",
        succeeded: result !== undefined,
        finishedAt,
        durationMs: finishedAt - startedAt,
        candidates: result ? result.snapshot.counts.screened : null,
        picks: result ? result.snapshot.picks.length : null,
        upstreamFailures: failuresOf(live?.client?.counts()),
      });
    }
    await live?.client?.close();
  }
}

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { announcedAt, latestListingDay, listingDaysBetween } from "../pipeline/domain/announcement.ts";
import type { CompiledRelevance } from "../pipeline/domain/relevance-model.ts";
import type { HttpCounts } from "../pipeline/domain/run-record.ts";
import type { BucketTarget } from "../pipeline/origin/open-origin.ts";
import { publishFolderTo, pullFolderFrom } from "../pipeline/origin/publish-folder.ts";
import { newestModelPath } from "../pipeline/relevance-file.ts";
import {
  type DayPages,
  historySource,
  InconsistentDayError,
  readDayPages,
  startDay,
} from "../pipeline/sources/arxiv-history.ts";
import { DEFAULT_CATEGORIES } from "../pipeline/sources/arxiv-source.ts";
import { createStoreFromEnv } from "../server/store/from-env.ts";
import { createMemoryStore } from "../server/store/memory-store.ts";
import {
  type BackfillCheckpoints,
  type BackfillJob,
  type BackfillSettings,
  backfillCheckpoints,
  sameSettings,
} from "./backfill-job.ts";
import { publishOption, publishTargetOf } from "./bucket-option.ts";
import { parseCategories, runCurate } from "./curate-command.ts";
import { arxivApiUrl, arxivInterval, arxivPageSize, createLiveSetup } from "./curate-live.ts";
import { serversStoreExists } from "./curate-webhooks.ts";
import { checkMetricsFile, failuresOf, metricsFileOption, writeRunMetrics } from "./metrics-file.ts";
import { parseDayOption } from "./options.ts";
import { createOutput, type Output, UsageError } from "./output.ts";
import { DEFAULT_PUBLIC_DIR, DEFAULT_RUNS_DIR, PROJECT_ROOT } from "./paths.ts";
import { printPublish, publishSettings } from "./publish-command.ts";
import {
  judgeOption,
  maxPicksOption,
  minTotalOption,
  modelOption,
  rankerFrom,
  rankerOption,
  type ScoringFlags,
  selectionFrom,
} from "./scoring-options.ts";

interface BackfillFlags extends ScoringFlags {
  from?: string;
  to?: string;
  categories?: string[];
  citations: boolean;
  resume: boolean;
  dryRun: boolean;
  force: boolean;
  announce: boolean;
  yes: boolean;
  out: string;
  runs: string;
  publish?: string;
  metricsFile?: string;
  json: boolean;
}

/** A range longer than this is asked about (or refused without a terminal) unless `--yes`. */
const LONG_RANGE_DAYS = 3 * 365 + 1;

type DayState = "publish" | "published" | "done";

interface PlannedDay {
  day: string;
  state: DayState;
  /** Pages already read by a stopped run, null when none. */
  saved: DayPages | null;
}

/** The settings the flags ask for; checked before anything is opened, read or asked. */
async function settingsFrom(flags: BackfillFlags, now: Date): Promise<BackfillSettings> {
  if (!flags.from || !flags.to)
    throw new UsageError("`picks backfill` needs `--from` and `--to` (or `--resume`)");
  if (flags.from > flags.to) {
    throw new UsageError(`Expected \`--from\` (${flags.from}) to be no later than \`--to\` (${flags.to})`);
  }
  const live = latestListingDay(now);
  if (flags.to >= live) {
    throw new UsageError(
      `Expected \`--to\` to be before ${live}, the day the live listing holds now: \`picks curate\` ` +
        "publishes it and announces it",
    );
  }
  return {
    from: flags.from,
    to: flags.to,
    categories: flags.categories ?? [...DEFAULT_CATEGORIES],
    judge: flags.judge,
    ranker: flags.ranker,
    // The model file, not "the newest": a resumed backfill ranks its days with the model it began with.
    model:
      flags.model !== undefined
        ? resolve(flags.model)
        : flags.ranker === "model"
          ? await newestModelPath()
          : null,
    citations: flags.citations,
    force: flags.force,
    announce: flags.announce,
    minTotal: flags.minTotal ?? null,
    maxPicks: flags.maxPicks ?? null,
    out: resolve(flags.out),
    runs: resolve(flags.runs),
  };
}

const spanDays = (from: string, to: string): number =>
  (new Date(`${to}T00:00:00Z`).getTime() - new Date(`${from}T00:00:00Z`).getTime()) / 86_400_000 + 1;

/** A range over three years: asked on a terminal, refused without one, unless `--yes`. */
async function confirmLongRange(settings: BackfillSettings, yes: boolean): Promise<void> {
  const days = spanDays(settings.from, settings.to);
  if (yes || days <= LONG_RANGE_DAYS) return;
  const what = `${settings.from}..${settings.to} spans ${days} days (over 3 years)`;
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new UsageError(`${what}; run again with \`--yes\` to backfill it`);
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(
      `${what}, about ${Math.round(days * (5 / 7))} listing days. Go on? [y/N] `,
    );
    if (!/^y(es)?$/i.test(answer.trim())) throw new UsageError("backfill not started");
  } finally {
    prompt.close();
  }
}

const minutes = (ms: number): string =>
  ms < 90_000 ? `${Math.max(1, Math.round(ms / 1000))} s` : `${Math.round(ms / 60_000)} min`;

/** At least one request a day not published; a stopped day needs only the pages it has not read. */
function requestsDue(plan: readonly PlannedDay[], pageSize: number): number {
  let due = 0;
  for (const { state, saved } of plan) {
    if (state !== "publish") continue;
    if (saved?.total == null) due += 1;
    else due += Math.ceil((saved.total - saved.entries.length) / pageSize);
  }
  return due;
}

function printPlan(out: Output, plan: readonly PlannedDay[], intervalMs: number, pageSize: number): void {
  const due = requestsDue(plan, pageSize);
  for (const { day, state, saved } of plan) {
    const pages =
      saved?.total != null ? `, ${saved.entries.length} of ${saved.total} papers already read` : "";
    const said = {
      publish: "to publish",
      published: "already published (skipped; --force publishes it again)",
      done: "published by this backfill",
    };
    out.line(`${day}  ${said[state]}${state === "publish" ? pages : ""}`);
  }
  const publish = plan.filter((entry) => entry.state === "publish").length;
  out.line(
    `${publish} of ${plan.length} listing days to publish; at least ${due} arXiv request${due === 1 ? "" : "s"} ` +
      `(one a day, one more for every ${pageSize} papers past the first), at least ${minutes(due * intervalMs)} at one request every ${intervalMs / 1000} s`,
  );
  out.json({ days: plan.map(({ day, state }) => ({ day, state })), requests_at_least: due });
}

/** What a backfill that ran reports to the metrics file. */
interface JobTotals {
  succeeded: boolean;
  candidates: number;
  picks: number;
  http: HttpCounts;
}

async function backfill(flags: BackfillFlags): Promise<void> {
  const metricsFile = checkMetricsFile(flags.metricsFile);
  if (!metricsFile || flags.dryRun) {
    await backfillDays(flags);
    return;
  }
  const startedAt = Date.now();
  let totals: JobTotals | undefined;
  try {
    totals = await backfillDays(flags);
  } finally {
    const finishedAt = Date.now();
    await writeRunMetrics(metricsFile, {
      command: "backfill",
      succeeded: totals?.succeeded ?? false,
      finishedAt,
      durationMs: finishedAt - startedAt,
      candidates: totals ? totals.candidates : null,
      picks: totals ? totals.picks : null,
      upstreamFailures: failuresOf(totals?.http),
    });
  }
}

async function backfillDays(flags: BackfillFlags): Promise<JobTotals | undefined> {
  const out = createOutput({ json: flags.json });
  const env = process.env;
  const now = new Date();
  const resumeStored = flags.resume && flags.from === undefined && flags.to === undefined;
  // Flags are checked before the state store is opened: a refused command creates no database.
  const asked = resumeStored ? null : await settingsFrom(flags, now);
  const publishTo = publishTargetOf(flags.publish, env);
  if (asked) await confirmLongRange(asked, flags.yes);
  const storeExists = serversStoreExists(env);
  if (resumeStored && !storeExists) throw new UsageError(NOTHING_TO_RESUME);
  // A dry run reads the checkpoints of a store that exists, and creates none.
  const store =
    flags.dryRun && !storeExists
      ? await createMemoryStore({})
      : await createStoreFromEnv(env, { rootDir: PROJECT_ROOT });
  try {
    const checkpoints = backfillCheckpoints(store);
    const stored = await checkpoints.stored();
    const settings = asked ?? stored?.settings;
    if (!settings) throw new UsageError(NOTHING_TO_RESUME);
    // Before any request: a missing or broken model stops the backfill with nothing published.
    const ranker = await rankerFrom({
      ranker: settings.ranker,
      ...(settings.model ? { model: settings.model } : {}),
    });
    const sameJob = stored && sameSettings(stored.settings, settings) ? stored : null;
    if (flags.dryRun) {
      const pageSize = arxivPageSize(env, arxivApiUrl(env));
      const plan = await planDays(settings, sameJob, checkpoints);
      printPlan(out, plan, arxivInterval(env, arxivApiUrl(env), arxivApiUrl(env)), pageSize);
      return undefined;
    }
    if (store.kind === "memory") {
      process.stderr.write(
        "picks: warning: STATE_STORE=memory keeps no checkpoint: a stopped backfill starts over\n",
      );
    }
    if (stored && !sameJob) {
      process.stderr.write(
        `picks: the stopped backfill of ${stored.settings.from}..${stored.settings.to} (other settings) is ` +
          `set aside: the ${stored.done.length} days it published stay published\n`,
      );
    }
    if (publishTo) {
      // Once, before the first day: recent.json and the feeds of every day then hold the whole history.
      const { where, pulled } = await pullFolderFrom(publishTo, settings.out);
      if (pulled.length > 0) out.line(`${where}: copied ${pulled.length} published days the folder lacked`);
    }
    const job = await checkpoints.begin(settings, now);
    return await runJob({ settings, job, checkpoints, ranker, out, json: flags.json, env, publishTo });
  } finally {
    await store.close();
  }
}

const NOTHING_TO_RESUME = "there is no stopped backfill to resume; give `--from` and `--to`";

/** The listing days of the range and what each needs: published already, by this job, or to publish. */
async function planDays(
  settings: BackfillSettings,
  job: BackfillJob | null,
  checkpoints: BackfillCheckpoints,
): Promise<PlannedDay[]> {
  const done = new Set(job?.done ?? []);
  const plan: PlannedDay[] = [];
  for (const day of listingDaysBetween(settings.from, settings.to)) {
    const published = existsSync(join(settings.out, "v1", "daily", `${day}.json`));
    const state: DayState = done.has(day) ? "done" : published && !settings.force ? "published" : "publish";
    const saved = state === "publish" ? await checkpoints.pages(settings.categories, day) : null;
    plan.push({ day, state, saved });
  }
  return plan;
}

interface JobRun {
  settings: BackfillSettings;
  job: BackfillJob;
  checkpoints: BackfillCheckpoints;
  ranker: CompiledRelevance | undefined;
  out: Output;
  json: boolean;
  env: NodeJS.ProcessEnv;
  /** The bucket to publish the folder to at the end; absent: the folder only. */
  publishTo: BucketTarget | undefined;
}

/** Publishes the job's days oldest first, checkpointing as it goes; stops at the first day that fails. */
async function runJob({
  settings,
  job,
  checkpoints,
  ranker,
  out,
  json,
  env,
  publishTo,
}: JobRun): Promise<JobTotals> {
  const live = createLiveSetup({
    source: "arxiv-history",
    categories: settings.categories,
    citations: settings.citations,
    judge: settings.judge,
    env,
  });
  const client = live.client;
  if (!client) throw new Error("the arXiv client was not set up");
  // The per-day summaries, unless the backfill prints one JSON document.
  const dayOut = json ? createOutput({ json: false, stdout: quiet() }) : out;
  try {
    const pageSize = arxivPageSize(env, live.arxivApiUrl);
    const interval = arxivInterval(env, live.arxivApiUrl, live.arxivApiUrl);
    const history = { client, categories: settings.categories, apiUrl: live.arxivApiUrl, pageSize };
    const plan = await planDays(settings, job, checkpoints);
    const todo = plan.filter((entry) => entry.state === "publish");
    const started = Date.now();
    const published: { date: string; papers: number; ms: number }[] = [];
    let candidates = 0;
    let picks = 0;
    for (const [index, { day, saved }] of todo.entries()) {
      const left = todo.length - index;
      const pace = published.length > 0 ? (Date.now() - started) / published.length : interval;
      const progress = (pages: DayPages) =>
        out.progress(
          `${day} (${index + 1}/${todo.length}): ${pages.entries.length}${pages.total === null ? "" : ` of ${pages.total}`} papers read, ` +
            `${client.counts().by_upstream.arxiv?.requests ?? 0} arXiv requests, about ${minutes(pace * left)} left`,
        );
      try {
        const start = startDay(history, day, saved);
        progress(start);
        const pages = await readDayPages(history, start, async (read) => {
          await checkpoints.savePages(settings.categories, read);
          progress(read);
        });
        const curating = performance.now();
        const result = await runCurate({
          date: day,
          source: historySource(settings.categories, pages),
          outDir: settings.out,
          runsDir: settings.runs,
          selection: selectionFrom({
            ranker: settings.ranker,
            ...(settings.minTotal === null ? {} : { minTotal: settings.minTotal }),
            ...(settings.maxPicks === null ? {} : { maxPicks: settings.maxPicks }),
          }),
          out: dayOut,
          ...(live.scorer ? { scorer: live.scorer } : {}),
          ...(ranker ? { ranker } : {}),
          ...(live.citations ? { citations: live.citations } : {}),
          citationsSkipped: live.citationsSkipped,
          httpCounts: () => client.counts(),
          webhooks: settings.announce ? "announce" : "quiet",
          // An announced day is published before it is announced, so a receiver finds it; history that
          // is not news goes to the bucket once, at the end.
          ...(publishTo && settings.announce ? { publishTo } : {}),
          backfilled: { announcedAt: announcedAt(day) },
        });
        const ms = Math.round(performance.now() - curating);
        candidates += result.snapshot.counts.screened;
        picks += result.snapshot.picks.length;
        job.done.push(day);
        job.failed = null;
        await checkpoints.save(job);
        await checkpoints.dropPages(settings.categories, day);
        published.push({ date: day, papers: pages.total ?? 0, ms });
      } catch (error) {
        const reason = (error as Error).message;
        // Pages that contradict each other are worth nothing: the retry reads the day from its start.
        if (error instanceof InconsistentDayError) await checkpoints.dropPages(settings.categories, day);
        job.failed = { day, reason, at: new Date().toISOString() };
        await checkpoints.save(job);
        const before =
          published.length > 0 ? `the days before it (${published.length}) stay published; ` : "";
        process.stderr.write(
          `picks: backfill of ${day} failed: ${reason}\n${before}\`picks backfill --resume\` retries it\n`,
        );
        process.exitCode = 1;
        break;
      }
    }
    if (job.failed === null) await checkpoints.finish();
    const skipped = plan.filter((entry) => entry.state !== "publish").map((entry) => entry.day);
    const papers = published.reduce((sum, day) => sum + day.papers, 0);
    const arxiv = client.counts().by_upstream.arxiv?.requests ?? 0;
    out.line(
      `backfill ${settings.from}..${settings.to}: published ${published.length} of ${todo.length} days` +
        (skipped.length > 0 ? `, skipped ${skipped.length} already published` : "") +
        `; ${papers} papers read in ${arxiv} arXiv requests, ${minutes(Date.now() - started)}`,
    );
    // The days published before a failure are published to the bucket too: they are complete.
    if (publishTo && !settings.announce) {
      printPublish(out, await publishFolderTo(publishTo, settings.out, publishSettings(out, env)));
    }
    out.json({
      from: settings.from,
      to: settings.to,
      published,
      skipped,
      failed: job.failed,
      papers,
      http: client.counts(),
    });
    return { succeeded: job.failed === null, candidates, picks, http: client.counts() };
  } finally {
    await client.close();
  }
}

/** A sink for the per-day summaries when the backfill prints one JSON document. */
function quiet(): NodeJS.WriteStream {
  return { write: () => true, isTTY: false } as unknown as NodeJS.WriteStream;
}

export function registerBackfill(program: Command): void {
  program
    .command("backfill")
    .description(
      "curate past announcement days from the arXiv query API, oldest first, as `picks curate` would have on each day",
    )
    .option("--from <YYYY-MM-DD>", "the first day of the range", parseDayOption("--from"))
    .option("--to <YYYY-MM-DD>", "the last day of the range (a past day)", parseDayOption("--to"))
    .option(
      "--categories <list>",
      `arXiv categories (default: ${DEFAULT_CATEGORIES.join(",")})`,
      parseCategories,
    )
    .addOption(judgeOption())
    .addOption(rankerOption())
    .addOption(modelOption())
    .option("--no-citations", "do not look up citation figures")
    .option("--resume", "continue the stopped backfill (its settings, without --from and --to)", false)
    .option("--dry-run", "print the days and the requests it would make, and read nothing", false)
    .option("--force", "publish again days already published", false)
    .option("--announce", "announce each day to webhook receivers (default: history is not news)", false)
    .option("--yes", "backfill a range over three years without asking", false)
    .option("--out <dir>", "static site root; snapshots go to <dir>/v1", DEFAULT_PUBLIC_DIR)
    .option("--runs <dir>", "where run records go", DEFAULT_RUNS_DIR)
    .addOption(publishOption())
    .addOption(minTotalOption())
    .addOption(maxPicksOption())
    .addOption(metricsFileOption())
    .option("--json", "print the result as JSON", false)
    .action(backfill);
}

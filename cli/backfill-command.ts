import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import {
  type BackfillSettings,
  backfillCheckpoints,
  sameSettings,
} from "../pipeline/backfill-checkpoints.ts";
import {
  type BackfillOutcome,
  minutes,
  type PlannedDay,
  planDays,
  requestsDue,
  runBackfill,
} from "../pipeline/backfill-job.ts";
import { latestListingDay } from "../pipeline/domain/announcement.ts";
import type { HttpCounts } from "../pipeline/domain/run-record.ts";
import { newestModelPath } from "../pipeline/relevance-file.ts";
import { DEFAULT_CATEGORIES } from "../pipeline/sources/arxiv-source.ts";
import { createStoreFromEnv, serversStoreExists } from "../server/store/from-env.ts";
import { createMemoryStore } from "../server/store/memory-store.ts";
import { publishTargetOf } from "./bucket-option.ts";
import { addDayOutputOptions, dailyJobSettings, dailyPublish, parseCategories } from "./curate-command.ts";
import { arxivApiUrl, arxivInterval, arxivPageSize, createLiveSetup } from "./curate-live.ts";
import { checkMetricsFile, failuresOf, writeRunMetrics } from "./metrics-file.ts";
import { parseDayOption } from "./options.ts";
import { createOutput, type Output, UsageError } from "./output.ts";
import { PROJECT_ROOT } from "./paths.ts";
import { printPublish } from "./publish-command.ts";
import { addScoringOptions, rankerFrom, type ScoringFlags, selectionFrom } from "./scoring-options.ts";

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
  const storeExists = serversStoreExists(env, PROJECT_ROOT);
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
    return await backfillLive({ flags, settings, checkpoints, now, ranker, publishTo, out });
  } finally {
    await store.close();
  }
}

/** The backfill itself, from the arXiv query API with the live scorer, citations and judge. */
async function backfillLive(job: {
  flags: BackfillFlags;
  settings: BackfillSettings;
  checkpoints: ReturnType<typeof backfillCheckpoints>;
  now: Date;
  ranker: Awaited<ReturnType<typeof rankerFrom>>;
  publishTo: ReturnType<typeof publishTargetOf>;
  out: Output;
}): Promise<JobTotals> {
  const { settings, out, publishTo } = job;
  const env = process.env;
  const live = createLiveSetup({
    source: "arxiv-history",
    categories: settings.categories,
    citations: settings.citations,
    judge: settings.judge,
    env,
  });
  const client = live.client;
  if (!client) throw new Error("the arXiv client was not set up");
  try {
    // The per-day summaries, unless the backfill prints one JSON document.
    const dayOut = job.flags.json ? createOutput({ json: false, stdout: quiet() }) : out;
    const outcome = await runBackfill({
      settings,
      checkpoints: job.checkpoints,
      now: job.now,
      history: {
        client,
        categories: settings.categories,
        apiUrl: live.arxivApiUrl,
        pageSize: arxivPageSize(env, live.arxivApiUrl),
      },
      intervalMs: arxivInterval(env, live.arxivApiUrl, live.arxivApiUrl),
      daily: await dailyJobSettings({
        outDir: settings.out,
        runsDir: settings.runs,
        selection: selectionFrom({
          ranker: settings.ranker,
          minTotal: settings.minTotal ?? undefined,
          maxPicks: settings.maxPicks ?? undefined,
        }),
        out: dayOut,
        scorer: live.scorer,
        ranker: job.ranker,
        citations: live.citations,
        citationsSkipped: live.citationsSkipped,
        httpCounts: () => client.counts(),
        webhooks: settings.announce ? "announce" : "quiet",
        env,
      }),
      publish: publishTo && dailyPublish(publishTo, out, env),
      onPulled: (where, days) => out.line(`${where}: copied ${days.length} published days the folder lacked`),
      onProgress: (message) => out.progress(message),
      onFailed: ({ day, reason }, before) => {
        const kept = before > 0 ? `the days before it (${before}) stay published; ` : "";
        process.stderr.write(
          `picks: backfill of ${day} failed: ${reason}\n${kept}\`picks backfill --resume\` retries it\n`,
        );
        process.exitCode = 1;
      },
    });
    printOutcome(out, settings, outcome, client.counts());
    return {
      succeeded: outcome.failed === null,
      candidates: outcome.candidates,
      picks: outcome.picks,
      http: client.counts(),
    };
  } finally {
    await client.close();
  }
}

const NOTHING_TO_RESUME = "there is no stopped backfill to resume; give `--from` and `--to`";

function printOutcome(
  out: Output,
  settings: BackfillSettings,
  outcome: BackfillOutcome,
  http: HttpCounts,
): void {
  const { published, skipped } = outcome;
  out.line(
    `backfill ${settings.from}..${settings.to}: published ${published.length} of ${outcome.plan.length - skipped.length} days` +
      (skipped.length > 0 ? `, skipped ${skipped.length} already published` : "") +
      `; ${outcome.papers} papers read in ${outcome.arxivRequests} arXiv requests, ${minutes(outcome.ms)}`,
  );
  if (outcome.folder) printPublish(out, outcome.folder);
  out.json({
    from: settings.from,
    to: settings.to,
    published,
    skipped,
    failed: outcome.failed,
    papers: outcome.papers,
    http,
  });
}

/** A sink for the per-day summaries when the backfill prints one JSON document. */
function quiet(): NodeJS.WriteStream {
  return { write: () => true, isTTY: false } as unknown as NodeJS.WriteStream;
}

export function registerBackfill(program: Command): void {
  const command = program
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
    .option("--no-citations", "do not look up citation figures")
    .option("--resume", "continue the stopped backfill (its settings, without --from and --to)", false)
    .option("--dry-run", "print the days and the requests it would make, and read nothing", false)
    .option("--force", "publish again days already published", false)
    .option("--announce", "announce each day to webhook receivers (default: history is not news)", false)
    .option("--yes", "backfill a range over three years without asking", false);
  addScoringOptions(command);
  addDayOutputOptions(command).action(backfill);
}

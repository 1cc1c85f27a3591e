// The backfill job: past listing days read from the arXiv query API, oldest first, each published by
// the daily job (daily-job.ts) as `picks curate` would have on its day, dated by its announcement.
// A checkpoint after every page and every day (backfill-checkpoints.ts) lets a stopped run continue
// where it stopped; the first day that fails stops the job and keeps the days before it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BackfillCheckpoints, BackfillJob, BackfillSettings } from "./backfill-checkpoints.ts";
import { type DailyJobOptions, type DailyPublish, runDailyJob } from "./daily-job.ts";
import { announcedAt, listingDaysBetween } from "./domain/announcement.ts";
import { type FolderPublish, publishFolderTo, pullFolderFrom } from "./origin/publish-folder.ts";
import {
  type DayPages,
  type HistoryOptions,
  historySource,
  InconsistentDayError,
  readDayPages,
  startDay,
} from "./sources/arxiv-history.ts";

export type DayState = "publish" | "published" | "done";

export interface PlannedDay {
  day: string;
  state: DayState;
  /** Pages already read by a stopped run, null when none. */
  saved: DayPages | null;
}

/** The listing days of the range and what each needs: published already, by this job, or to publish. */
export async function planDays(
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

/** At least one request a day not published; a stopped day needs only the pages it has not read. */
export function requestsDue(plan: readonly PlannedDay[], pageSize: number): number {
  let due = 0;
  for (const { state, saved } of plan) {
    if (state !== "publish") continue;
    if (saved?.total == null) due += 1;
    else due += Math.ceil((saved.total - saved.entries.length) / pageSize);
  }
  return due;
}

export interface BackfillOptions {
  settings: BackfillSettings;
  checkpoints: BackfillCheckpoints;
  now: Date;
  /** The arXiv query API: its client (whose counts the job reports), categories and page size. */
  history: HistoryOptions & { pageSize: number };
  /** The time between two arXiv requests, for the estimate before the first day is done. */
  intervalMs: number;
  /** Every day's daily job but its day and source; without `publish`, which the job decides. */
  daily: Omit<DailyJobOptions, "date" | "source" | "publish" | "backfilled" | "generatedAt">;
  /**
   * The bucket: announced days are each published before they are announced, so a receiver finds
   * them; history that is not news goes once, at the end, with the days published before a failure.
   */
  publish?: DailyPublish;
  onPulled?: (where: string, days: readonly string[]) => void;
  onProgress: (message: string) => void;
  /** The day that stops the job, told at once: the publish at the end may take a while. */
  onFailed?: (failed: NonNullable<BackfillJob["failed"]>, publishedBefore: number) => void;
}

export interface BackfillOutcome {
  plan: PlannedDay[];
  /** The days published by this run, oldest first. */
  published: { date: string; papers: number; ms: number }[];
  /** The range's days left as they were: published already, or by this job before. */
  skipped: string[];
  /** The day that stopped the job, null when every day was published. */
  failed: BackfillJob["failed"];
  candidates: number;
  picks: number;
  /** Papers read from the API, and the arXiv requests made. */
  papers: number;
  arxivRequests: number;
  ms: number;
  /** The folder published at the end (history that is not news), null when not. */
  folder: FolderPublish | null;
}

/** A duration as a person reads it: seconds up to a minute and a half, then minutes. */
export const minutes = (ms: number): string =>
  ms < 90_000 ? `${Math.max(1, Math.round(ms / 1000))} s` : `${Math.round(ms / 60_000)} min`;

/** Publishes the job's days oldest first, checkpointing as it goes; stops at the first day that fails. */
export async function runBackfill(options: BackfillOptions): Promise<BackfillOutcome> {
  const { settings, checkpoints, history, daily, publish } = options;
  if (publish) {
    // Once, before the first day: recent.json and the feeds of every day then hold the whole history.
    const { where, pulled } = await pullFolderFrom(publish.to, settings.out);
    if (pulled.length > 0) options.onPulled?.(where, pulled);
  }
  const job = await checkpoints.begin(settings, options.now);
  const arxivRequests = () => history.client.counts().by_upstream.arxiv?.requests ?? 0;
  const plan = await planDays(settings, job, checkpoints);
  const todo = plan.filter((entry) => entry.state === "publish");
  const started = Date.now();
  const published: BackfillOutcome["published"] = [];
  let candidates = 0;
  let picks = 0;
  for (const [index, { day, saved }] of todo.entries()) {
    const left = todo.length - index;
    const pace = published.length > 0 ? (Date.now() - started) / published.length : options.intervalMs;
    const progress = (pages: DayPages) =>
      options.onProgress(
        `${day} (${index + 1}/${todo.length}): ${pages.entries.length}${pages.total === null ? "" : ` of ${pages.total}`} papers read, ` +
          `${arxivRequests()} arXiv requests, about ${minutes(pace * left)} left`,
      );
    try {
      const start = startDay(history, day, saved);
      progress(start);
      const pages = await readDayPages(history, start, async (read) => {
        await checkpoints.savePages(settings.categories, read);
        progress(read);
      });
      const curating = performance.now();
      const { result } = await runDailyJob({
        ...daily,
        date: day,
        source: historySource(settings.categories, pages),
        publish: settings.announce ? publish : undefined,
        backfilled: true,
        generatedAt: announcedAt(day),
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
      // Pages that contradict each other are worth nothing: the retry reads the day from its start.
      if (error instanceof InconsistentDayError) await checkpoints.dropPages(settings.categories, day);
      job.failed = { day, reason: (error as Error).message, at: new Date().toISOString() };
      await checkpoints.save(job);
      options.onFailed?.(job.failed, published.length);
      break;
    }
  }
  if (job.failed === null) await checkpoints.finish();
  // The days published before a failure are published to the bucket too: they are complete.
  const folder =
    publish && !settings.announce ? await publishFolderTo(publish.to, settings.out, publish) : null;
  return {
    plan,
    published,
    skipped: plan.filter((entry) => entry.state !== "publish").map((entry) => entry.day),
    failed: job.failed,
    candidates,
    picks,
    papers: published.reduce((sum, day) => sum + day.papers, 0),
    arxivRequests: arxivRequests(),
    ms: Date.now() - started,
    folder,
  };
}

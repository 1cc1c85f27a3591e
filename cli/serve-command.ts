import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Command } from "commander";
import { bucketUrl, ORIGIN_URL_FORM } from "../pipeline/domain/origin-url.ts";
import { RANKED_SELECTION } from "../pipeline/domain/selection.ts";
import { type BucketTarget, openBucket } from "../pipeline/origin/open-origin.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import { siteUrlFromEnv } from "../pipeline/site-url.ts";
import { configFromEnv } from "../server/config.ts";
import { type AppContext, createContext } from "../server/context.ts";
import { listen } from "../server/http/listen.ts";
import {
  clusterMetricsText,
  scrapeText,
  shareMetricsWithPrimary,
} from "../server/metrics/cluster-metrics.ts";
import { listenMetrics, type MetricsListener } from "../server/metrics/metrics-endpoint.ts";
import {
  type MetricsSettings,
  metricsOn,
  metricsSettingsFromEnv,
} from "../server/metrics/metrics-settings.ts";
import { createServiceMetrics } from "../server/metrics/service-metrics.ts";
import { createBucketSource } from "../server/snapshots/bucket-source.ts";
import { createFolderSource } from "../server/snapshots/folder-source.ts";
import { createSnapshotCache, type SnapshotCache } from "../server/snapshots/snapshot-cache.ts";
import { createStoreFromEnv } from "../server/store/from-env.ts";
import type { Store } from "../server/store/types.ts";
import { rulesScorer } from "../server/submissions/submission-service.ts";
import { submissionSettingsFromEnv } from "../server/submissions/submission-settings.ts";
import { createSemanticChecker } from "../server/verify/semantic.ts";
import { semanticConfigFromEnv } from "../server/verify/semantic-config.ts";
import { watchPublishedDays } from "../server/webhooks/daily-announcer.ts";
import { WEBHOOK_QUEUE } from "../server/webhooks/webhook-records.ts";
import { type WebhookSettings, webhookSettingsFromEnv } from "../server/webhooks/webhook-settings.ts";
import { bucketTargetFrom } from "./bucket-option.ts";
import { deliverOnDemand } from "./delivery-thread.ts";
import { parseIntOption, parsePortOption } from "./options.ts";
import { createOutput, type Output, UsageError } from "./output.ts";
import { DEFAULT_PUBLIC_DIR, DEFAULT_RUNS_DIR, PROJECT_ROOT } from "./paths.ts";
import { isClusterWorker, reportListening, runCluster, serverIndex } from "./serve-cluster.ts";
import { VERSION } from "./version.ts";
import {
  inServerWorker,
  startDeliveryWorker,
  startSubmissionWorker,
  submissionScorerFromEnv,
} from "./worker-command.ts";

interface ServeFlags {
  port: number;
  host: string;
  public: string;
  snapshots?: string;
  runs: string;
  seed: boolean;
  worker: boolean;
  workers: number;
}

async function hasSnapshots(publicDir: string): Promise<boolean> {
  const names = await readdir(join(publicDir, "v1", "daily")).catch(() => [] as string[]);
  return names.some((name) => /^\d{4}-\d{2}-\d{2}\.json$/.test(name));
}

/** First start on a fresh clone: publish the embedded sample days so there is something to serve. */
async function seedSample(publicDir: string, runsDir: string, out: Output): Promise<void> {
  if (await hasSnapshots(publicDir)) return;
  out.line("No snapshots yet: curating the embedded sample days.");
  // Imported here, not above: a server that has snapshots never loads the curation pipeline.
  const [{ runCurate }, { createSampleSource, sampleDays }, { rankerFrom }, recorded] = await Promise.all([
    import("./curate-command.ts"),
    import("../pipeline/sources/sample-source.ts"),
    import("./scoring-options.ts"),
    import("../pipeline/citations/recorded-citations.ts"),
  ]);
  const source = createSampleSource();
  // The sample's citation figures are replayed from the recording kept with it, offline: the graph
  // shows on a fresh clone, and each figure says it was written for the demonstration.
  const recording = await recorded.readCitationRecording();
  const citations = recorded.recordedCitationLookup(recording);
  out.line(
    `Citation figures: replayed from ${relative(PROJECT_ROOT, recorded.SAMPLE_CITATIONS_FILE)} ` +
      `(${recording.note}, written ${recording.written_at}).`,
  );
  // Ranked as `picks curate` ranks by default: by the shipped relevance model.
  const ranker = await rankerFrom({ ranker: "model" });
  const selection = RANKED_SELECTION;
  for (const date of await sampleDays()) {
    await runCurate({
      date,
      source,
      outDir: publicDir,
      runsDir,
      selection,
      out,
      citations,
      ...(ranker ? { ranker } : {}),
      // The firms' views look up their watched papers: the sample's illustrative figures are not theirs.
      firmViews: false,
    });
  }
}

/**
 * The webhook deliveries of this server: on a thread of their own when the store is shared (SQLite,
 * Redis), started when there is something to deliver, so a fan-out does not take the serving
 * thread's time; in this thread on a memory store, which another thread cannot see.
 */
async function startDeliveries(
  context: AppContext,
  store: Store,
  settings: WebhookSettings,
  log: (message: string) => void,
): Promise<{ wake(): void; stop(): Promise<void> }> {
  if (store.kind === "memory") return startDeliveryWorker(context.webhooks);
  return deliverOnDemand({
    queue: store.queue(WEBHOOK_QUEUE),
    pollIntervalMs: settings.pollIntervalMs,
    onQueued: context.webhooks.onQueued,
    log,
    countDelivery: context.metrics.countDelivery,
  });
}

/** `--snapshots s3://...` or SNAPSHOTS_URL, checked with its credentials before anything starts. */
function snapshotsBucketFrom(flags: ServeFlags, env: NodeJS.ProcessEnv): BucketTarget | undefined {
  const url = flags.snapshots ?? (env.SNAPSHOTS_URL?.trim() || undefined);
  if (url === undefined) return undefined;
  if (flags.seed) {
    throw new UsageError(
      "`--seed` curates into the local folder; with `--snapshots`, curate with `picks curate --publish` instead",
    );
  }
  return bucketTargetFrom("--snapshots", url, env);
}

/** SNAPSHOTS_POLL_SECONDS: how often a server reads the bucket's manifest (default 30). */
function pollSecondsFrom(env: NodeJS.ProcessEnv): number {
  const value = env.SNAPSHOTS_POLL_SECONDS?.trim();
  if (!value) return 30;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || seconds < 0.1 || seconds > 3600) {
    throw new UsageError(
      `Expected SNAPSHOTS_POLL_SECONDS to be a number of seconds from 0.1 to 3600, got \`${value}\``,
    );
  }
  return seconds;
}

/** The metrics settings, or the usage error (exit 2) that names what is wrong with them. */
function metricsSettingsOrRefuse(env: NodeJS.ProcessEnv, port: number): MetricsSettings {
  try {
    return metricsSettingsFromEnv(env, port);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** METRICS_PORT's listener, opened before anything else starts so a taken port stops the server at once. */
async function openMetricsListener(
  settings: MetricsSettings,
  scrape: () => Promise<string>,
): Promise<MetricsListener | undefined> {
  if (settings.port === null) return undefined;
  try {
    return await listenMetrics({
      host: settings.host,
      port: settings.port,
      token: settings.token,
      scrape,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "EADDRINUSE"
        ? "is taken by another program"
        : code === "EACCES"
          ? "may not be opened by this user"
          : `could not be opened (${(error as Error).message})`;
    throw new UsageError(`METRICS_PORT ${settings.port} on ${settings.host} ${why}: choose another port`);
  }
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("serve the snapshots and the API over HTTP")
    .option(
      "--port <port>",
      "port to listen on (0 picks a free one)",
      parsePortOption,
      Number(process.env.PORT ?? 8787),
    )
    .option("--host <host>", "address to listen on", process.env.HOST ?? "127.0.0.1")
    .option("--public <dir>", "static site root holding v1/", DEFAULT_PUBLIC_DIR)
    .option(
      "--snapshots <url>",
      `load the published days from a bucket, ${ORIGIN_URL_FORM}, instead of --public (default: SNAPSHOTS_URL)`,
    )
    .option("--runs <dir>", "where run records go (with --seed)", DEFAULT_RUNS_DIR)
    .option("--seed", "curate the embedded sample days first when no snapshot exists", false)
    .option("--no-worker", "do not score submissions in this process (also WORKER=off); run `picks worker`")
    .option(
      "--workers <n>",
      "server processes sharing the port (node:cluster)",
      parseIntOption("--workers", 1, 64),
      1,
    )
    .action(runServe);
}

async function runServe(flags: ServeFlags): Promise<void> {
  const out = createOutput({ json: false });
  const bucket = snapshotsBucketFrom(flags, process.env);
  const pollSeconds = pollSecondsFrom(process.env);
  if (flags.seed && !isClusterWorker() && !bucket) await seedSample(flags.public, flags.runs, out);
  const log = (message: string) => process.stderr.write(`${message}\n`);
  const metrics = metricsSettingsOrRefuse(process.env, flags.port);
  const config = { ...configFromEnv(process.env), metrics };
  const clustered = flags.workers > 1 && !isClusterWorker();
  // The primary of a cluster serves the merged metrics; its workers share theirs with it.
  const serviceMetrics = createServiceMetrics();
  if (isClusterWorker() && metricsOn(metrics)) shareMetricsWithPrimary(serviceMetrics.registry);
  const metricsListener = isClusterWorker()
    ? undefined
    : await openMetricsListener(
        metrics,
        clustered ? clusterMetricsText : () => scrapeText(serviceMetrics.registry),
      );
  // Settings are checked before the store is opened, so a wrong one leaves no state behind.
  const withWorker = inServerWorker(flags.worker, process.env);
  const rubric = await loadRubric();
  const score = submissionScorerFromEnv(process.env, log, rubric) ?? rulesScorer(rubric);
  const submissions = { settings: submissionSettingsFromEnv(process.env), score };
  const webhooks = { settings: webhookSettingsFromEnv(process.env) };
  const siteUrl = siteUrlFromEnv(process.env);
  const store = await createStoreFromEnv(process.env, { rootDir: PROJECT_ROOT, checkpointOffThread: true });
  if (clustered) return startCluster(store, flags.workers, metricsListener, out);
  const snapshots = await openSnapshots(flags.public, bucket, pollSeconds, store, log);
  const semantic = createSemanticChecker(semanticConfigFromEnv(process.env));
  // A server without a model file does not start; the file itself is read at the readers' first call.
  const modelPath = await newestModelPath();
  const context = await createContext({
    version: VERSION,
    snapshots,
    store,
    config,
    log,
    semantic,
    submissions,
    webhooks,
    metrics: serviceMetrics,
    // Readers' personal models read papers with the shipped model's vocabulary: every server the same.
    relevance: () =>
      loadRelevanceModel(modelPath).catch((error: unknown) => {
        log(`readers: ${(error as Error).message}; lists are in the global order`);
        return null;
      }),
  });
  await serveContext(context, { flags, withWorker, siteUrl, metricsListener, out });
}

/** The primary of `--workers N`: the store was opened only to fail early, once, on a bad one. */
async function startCluster(
  store: Store,
  count: number,
  metricsListener: MetricsListener | undefined,
  out: Output,
): Promise<void> {
  const kind = store.kind;
  await store.close();
  if (kind === "memory") {
    throw new UsageError("Expected STATE_STORE `sqlite` or `redis` with `--workers`: memory is not shared");
  }
  runCluster({
    count,
    banner: (url) => `Research-Picks ${VERSION} listening on ${url}`,
    notes: metricsListener ? [`  metrics at ${metricsListener.url}`] : [],
    out,
  });
}

/** The published days, from the bucket or the folder, watched for new ones. */
async function openSnapshots(
  publicDir: string,
  bucket: BucketTarget | undefined,
  pollSeconds: number,
  store: Store,
  log: (message: string) => void,
): Promise<SnapshotCache> {
  const source = bucket
    ? createBucketSource({
        origin: await openBucket(bucket),
        url: bucketUrl(bucket),
        ...(bucket.settings.endpoint ? { endpoint: bucket.settings.endpoint } : {}),
        pollSeconds,
        ...(process.env.REDIS_URL?.trim() ? { redisUrl: process.env.REDIS_URL.trim() } : {}),
        log,
      })
    : createFolderSource(publicDir);
  try {
    return await createSnapshotCache({ source, watch: true, log, background: true });
  } catch (error) {
    // Nothing may keep the process from exiting with the reason: the store's and the bucket's
    // connections are closed first.
    source.close();
    await store.close();
    throw error;
  }
}

/** Listens, with the workers and the announcer of new days beside it, until SIGTERM or SIGINT. */
async function serveContext(
  context: AppContext,
  options: {
    flags: ServeFlags;
    withWorker: boolean;
    siteUrl: string;
    metricsListener: MetricsListener | undefined;
    out: Output;
  },
): Promise<void> {
  const { flags, metricsListener, out } = options;
  const { store, snapshots, log } = context;
  // One submission worker per server, not per cluster worker: the configured concurrency holds.
  const first = options.withWorker && serverIndex() === 1;
  const worker = first ? await startSubmissionWorker(context.submissions) : null;
  const deliveries = first
    ? await startDeliveries(context, store, context.webhooks.deps.settings, log)
    : null;
  // Every server announces the days it sees appear; the events' ids make each one sent once.
  const announcer = watchPublishedDays(
    {
      store,
      now: context.now,
      siteUrl: options.siteUrl,
      log,
      wake: () => deliveries?.wake(),
      rankDays: (keyIds, date) => context.readers.rankDays(keyIds, date, 0),
    },
    snapshots,
  );
  const running = await listen(context, { port: flags.port, host: flags.host });
  if (isClusterWorker()) {
    reportListening(running.url);
  } else {
    out.line(`Research-Picks ${VERSION} listening on ${running.url}`);
    out.line(`  try ${running.url}/v1/daily/latest`);
    if (metricsListener) out.line(`  metrics at ${metricsListener.url}`);
  }
  const stop = async () => {
    // The worker finishes the submissions in hand first; what is queued waits in the store.
    await Promise.all([running.close(), worker?.stop(), deliveries?.stop(), metricsListener?.close()]);
    // Then the snapshots, before the announcer: it waits for the history, which may still be loading
    // (thousands of days from a bucket); closed, that load stops at once.
    snapshots.close();
    await announcer.stop();
    await store.close();
  };
  process.once("SIGTERM", () => void stop());
  process.once("SIGINT", () => void stop());
}

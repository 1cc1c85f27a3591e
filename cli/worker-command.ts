import { setPriority } from "node:os";
import { isMainThread, parentPort } from "node:worker_threads";
import { type Command, Option } from "commander";
import type { Candidate } from "../pipeline/domain/candidate.ts";
import type { Rubric } from "../pipeline/domain/rubric.ts";
import type { Scores } from "../pipeline/domain/score.ts";
import { compileRubric, scoreWith } from "../pipeline/domain/scorer.ts";
import { createHttpClient } from "../pipeline/http.ts";
import { userAgent } from "../pipeline/http-rules.ts";
import { judgeConfigFromEnv } from "../pipeline/judge/judge-config.ts";
import { createLlmJudge } from "../pipeline/judge/llm-judge.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import type { ScoringContext } from "../pipeline/screen.ts";
import { withScoredEvent } from "../server/context.ts";
import { createStoreFromEnv } from "../server/store/from-env.ts";
import type { SubmissionScorer } from "../server/submissions/submission-records.ts";
import { createSubmissionService, rulesScorer } from "../server/submissions/submission-service.ts";
import { submissionSettingsFromEnv } from "../server/submissions/submission-settings.ts";
import { createSubmissionWorker, type SubmissionWorker } from "../server/submissions/submission-worker.ts";
import { createDeliveryWorker, type DeliveryWorker } from "../server/webhooks/delivery-worker.ts";
import { createWebhookService, type WebhookService } from "../server/webhooks/webhook-service.ts";
import { webhookSettingsFromEnv } from "../server/webhooks/webhook-settings.ts";
import { THREAD_READY, THREAD_STOP, THREAD_WAKE } from "./delivery-thread.ts";
import { createOutput, UsageError } from "./output.ts";
import { PROJECT_ROOT } from "./paths.ts";
import { VERSION } from "./version.ts";

const log = (message: string) => process.stderr.write(`${message}\n`);

// Nice 10: a CFS weight of 110 against the serving thread's 1024, about a tenth of a busy core.
const DELIVERY_THREAD_NICE = 10;

/**
 * The scorer of submissions over `rubric`: the language-model judge when LLM_BASE_URL and LLM_MODEL
 * are set (it falls back to the rules for a submission on any failure, and the scores say which
 * scorer made them), unless SUBMIT_SCORER=rules; otherwise undefined, for the rules.
 */
export function submissionScorerFromEnv(
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
  rubric: Rubric,
): SubmissionScorer | undefined {
  const choice = env.SUBMIT_SCORER?.trim() || "auto";
  if (!["auto", "rules", "llm"].includes(choice)) {
    throw new UsageError(`Expected SUBMIT_SCORER to be \`rules\` or \`llm\`, got \`${choice}\``);
  }
  let config: ReturnType<typeof judgeConfigFromEnv>;
  try {
    config = judgeConfigFromEnv(env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (choice === "rules" || (choice === "auto" && !config)) return undefined;
  if (!config) throw new UsageError("SUBMIT_SCORER=llm needs LLM_BASE_URL and LLM_MODEL in the environment");
  const client = createHttpClient({
    userAgent: userAgent("Research-Picks", VERSION, env.PICKS_CONTACT),
    upstreams: { llm: { concurrency: config.concurrency } },
  });
  // No answer cache: submission ids restart with a fresh store, and each is scored once anyway.
  const judge = createLlmJudge({ client, config, now: () => new Date() });
  const compiled = compileRubric(rubric);
  const context: ScoringContext = {
    rubric,
    rules: (c: Candidate) => scoreWith(compiled, c),
    progress: () => {},
  };
  return async (candidate) => {
    const { scores, run } = await judge.score([candidate], context);
    for (const fallback of run.fallbacks)
      warn(`${candidate.id}: the judge fell back to the rules: ${fallback.reason}`);
    return scores[0] as Scores;
  };
}

/** The worker the server runs unless WORKER=off or --no-worker; started and stopped by `serve`. */
export async function startSubmissionWorker(
  service: Parameters<typeof createSubmissionWorker>[0],
): Promise<SubmissionWorker> {
  const worker = createSubmissionWorker(service);
  await worker.start();
  return worker;
}

/** The webhook delivery worker, run beside the submission worker by `serve` and `picks worker`. */
export async function startDeliveryWorker(service: WebhookService): Promise<DeliveryWorker> {
  const worker = createDeliveryWorker(service.deps, service.onQueued);
  await worker.start();
  return worker;
}

/** Whether `serve` runs the worker in-process: on unless `--no-worker` or WORKER=off. */
export function inServerWorker(flag: boolean, env: NodeJS.ProcessEnv): boolean {
  const value = env.WORKER?.trim().toLowerCase() ?? "";
  if (!["", "on", "off"].includes(value))
    throw new UsageError(`Expected WORKER to be \`on\` or \`off\`, got \`${value}\``);
  return flag && value !== "off";
}

/**
 * The thread side of delivery-thread.ts: only the webhook deliveries, woken and stopped by the
 * serving thread's messages. Its scheduling priority is lowered (on Linux, for this thread alone),
 * so under load the serving thread comes first and deliveries use what it leaves.
 */
async function runDeliveryThread(): Promise<void> {
  if (isMainThread || !parentPort) {
    throw new UsageError("Expected --deliveries-thread only on the thread `picks serve` starts");
  }
  const port = parentPort;
  try {
    setPriority(DELIVERY_THREAD_NICE);
  } catch {
    // Not allowed here (some containers): the thread still runs, at the default priority.
  }
  const store = await createStoreFromEnv(process.env, { rootDir: PROJECT_ROOT });
  const webhooks = createWebhookService(
    // Counted by the serving thread, whose metrics are scraped.
    { store, now: Date.now, log, countDelivery: (outcome) => port.postMessage({ delivery: outcome }) },
    { settings: webhookSettingsFromEnv(process.env) },
  );
  const deliveries = await startDeliveryWorker(webhooks);
  port.on("message", (message) => {
    if (message === THREAD_WAKE) deliveries.wake();
    if (message !== THREAD_STOP) return;
    void (async () => {
      await deliveries.stop();
      await store.close();
      // Ends this thread only; idle keep-alive sockets to receivers would otherwise hold it open.
      process.exit(0);
    })();
  });
  port.postMessage(THREAD_READY);
}

export function registerWorker(program: Command): void {
  program
    .command("worker")
    .description(
      "score queued agent-runtime submissions and deliver webhooks in a separate process (shares the store)",
    )
    .addOption(new Option("--deliveries-thread").hideHelp())
    .action(async (flags: { deliveriesThread?: boolean }) => {
      if (flags.deliveriesThread) return runDeliveryThread();
      const out = createOutput({ json: false });
      const settings = submissionSettingsFromEnv(process.env);
      const webhookSettings = webhookSettingsFromEnv(process.env);
      const rubric = await loadRubric();
      const score = submissionScorerFromEnv(process.env, log, rubric) ?? rulesScorer(rubric);
      const store = await createStoreFromEnv(process.env, { rootDir: PROJECT_ROOT });
      const base = { store, now: Date.now, log };
      const webhooks = createWebhookService(base, { settings: webhookSettings });
      const scored = withScoredEvent(webhooks, undefined);
      const service = createSubmissionService(base, { settings, score, ...scored });
      const worker = await startSubmissionWorker(service);
      const deliveries = await startDeliveryWorker(webhooks);
      out.line(
        `Research-Picks submission worker running on the ${store.kind} store, ` +
          `${settings.concurrency} at a time`,
      );
      const stop = async () => {
        await Promise.all([worker.stop(), deliveries.stop()]);
        await store.close();
      };
      process.once("SIGTERM", () => void stop());
      process.once("SIGINT", () => void stop());
    });
}

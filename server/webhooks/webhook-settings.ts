import {
  DEFAULT_RETRY_SCHEDULE_MS,
  DISABLE_AFTER_MS,
  parseRetrySchedule,
} from "../../pipeline/domain/webhook.ts";
import { positiveInt, testOnlyFlag } from "../env-values.ts";

/** How deliveries are made and retried; read from the environment at the edge. */
export interface WebhookSettings {
  /** A delivery counts only if a 2xx answer arrives within this time. */
  timeoutMs: number;
  /** Waits after the first, second, ... failed attempt of a delivery; jittered by ±20%. */
  retryScheduleMs: readonly number[];
  /** Failing every attempt this long disables an endpoint. */
  disableAfterMs: number;
  /** Test-only (WEBHOOK_ALLOW_LOOPBACK=1): lets deliveries reach 127.0.0.1 and ::1. Never in production. */
  allowLoopback: boolean;
  /** How long a worker holds a claimed delivery; longer than the timeout, so one attempt fits. */
  leaseMs: number;
  /** How often an idle worker looks for work queued by other processes and for retries come due. */
  pollIntervalMs: number;
  /** Deliveries in flight at once per worker. */
  concurrency: number;
  userAgent: string;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  timeoutMs: 10_000,
  retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
  disableAfterMs: DISABLE_AFTER_MS,
  allowLoopback: false,
  leaseMs: 30_000,
  pollIntervalMs: 500,
  concurrency: 16,
  userAgent: "Research-Picks-webhooks/0.1",
};

/**
 * WEBHOOK_ALLOW_LOOPBACK, WEBHOOK_RETRY_SCHEDULE_MS, WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_TIMEOUT_MS,
 * WEBHOOK_LEASE_MS, WEBHOOK_POLL_MS, WEBHOOK_CONCURRENCY.
 */
export function webhookSettingsFromEnv(env: NodeJS.ProcessEnv): WebhookSettings {
  const d = DEFAULT_WEBHOOK_SETTINGS;
  const loopback = testOnlyFlag(env, "WEBHOOK_ALLOW_LOOPBACK");
  const rawSchedule = env.WEBHOOK_RETRY_SCHEDULE_MS?.trim();
  const schedule = rawSchedule ? parseRetrySchedule(rawSchedule) : d.retryScheduleMs;
  if (typeof schedule === "string") throw new Error(schedule);
  const timeoutMs = positiveInt(env, "WEBHOOK_TIMEOUT_MS", d.timeoutMs);
  const leaseMs = positiveInt(env, "WEBHOOK_LEASE_MS", d.leaseMs);
  // A lease shorter than an attempt hands the delivery to another worker mid-attempt: sent twice.
  if (leaseMs <= timeoutMs) {
    throw new Error(
      `Expected WEBHOOK_LEASE_MS (${leaseMs}) to be longer than WEBHOOK_TIMEOUT_MS (${timeoutMs}), so one attempt fits in a lease`,
    );
  }
  return {
    ...d,
    allowLoopback: loopback,
    retryScheduleMs: schedule,
    disableAfterMs: positiveInt(env, "WEBHOOK_DISABLE_AFTER_MS", d.disableAfterMs),
    timeoutMs,
    leaseMs,
    pollIntervalMs: positiveInt(env, "WEBHOOK_POLL_MS", d.pollIntervalMs),
    concurrency: positiveInt(env, "WEBHOOK_CONCURRENCY", d.concurrency),
  };
}

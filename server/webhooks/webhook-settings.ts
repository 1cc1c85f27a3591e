import {
  DEFAULT_RETRY_SCHEDULE_MS,
  DISABLE_AFTER_MS,
  parseRetrySchedule,
} from "../../pipeline/domain/webhook.ts";

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

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new Error(`Expected ${name} to be a whole number above 0, got \`${raw}\``);
  return Number(raw);
}

/**
 * WEBHOOK_ALLOW_LOOPBACK, WEBHOOK_RETRY_SCHEDULE_MS, WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_TIMEOUT_MS,
 * WEBHOOK_LEASE_MS, WEBHOOK_POLL_MS, WEBHOOK_CONCURRENCY.
 */
export function webhookSettingsFromEnv(env: NodeJS.ProcessEnv): WebhookSettings {
  const d = DEFAULT_WEBHOOK_SETTINGS;
  const loopback = env.WEBHOOK_ALLOW_LOOPBACK?.trim() ?? "";
  if (!["", "0", "1"].includes(loopback)) {
    throw new Error(`Expected WEBHOOK_ALLOW_LOOPBACK to be 0 or 1 (test-only), got \`${loopback}\``);
  }
  const rawSchedule = env.WEBHOOK_RETRY_SCHEDULE_MS?.trim();
  const schedule = rawSchedule ? parseRetrySchedule(rawSchedule) : d.retryScheduleMs;
  if (typeof schedule === "string") throw new Error(schedule);
  return {
    ...d,
    allowLoopback: loopback === "1",
    retryScheduleMs: schedule,
    disableAfterMs: wholeNumber(env, "WEBHOOK_DISABLE_AFTER_MS", d.disableAfterMs),
    timeoutMs: wholeNumber(env, "WEBHOOK_TIMEOUT_MS", d.timeoutMs),
    leaseMs: wholeNumber(env, "WEBHOOK_LEASE_MS", d.leaseMs),
    pollIntervalMs: wholeNumber(env, "WEBHOOK_POLL_MS", d.pollIntervalMs),
    concurrency: wholeNumber(env, "WEBHOOK_CONCURRENCY", d.concurrency),
  };
}

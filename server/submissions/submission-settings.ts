import { positiveInt, testOnlyFlag } from "../env-values.ts";

/** How submissions are fetched and worked on; read from the environment at the edge. */
export interface SubmissionSettings {
  fetchTimeoutMs: number;
  maxPageBytes: number;
  maxRedirects: number;
  /** Test-only (SUBMIT_ALLOW_LOOPBACK=1): lets the fetcher reach 127.0.0.1 and ::1. Never in production. */
  allowLoopbackFetch: boolean;
  /** How much of a page's text is scored with the description (the rest adds nothing but length). */
  pageTextMaxChars: number;
  /** How long a worker holds a claimed submission before another may take it; renewed while it works. */
  leaseMs: number;
  /** How often an idle worker looks for work queued by other processes and for expired leases. */
  pollIntervalMs: number;
  /** How often a worker re-queues submissions left unqueued by a crash between accepting and queueing. */
  sweepIntervalMs: number;
  concurrency: number;
  /** Starts of work after which a submission that keeps crashing its worker is failed for good. */
  maxAttempts: number;
  userAgent: string;
  /**
   * Test-only (SUBMIT_TEST_CRASH_AFTER_OUTCOME=1): the worker SIGKILLs its own process right after it
   * recorded an outcome, so a test can see what survives a crash there. Never in production.
   */
  crashAfterOutcome: boolean;
}

export const DEFAULT_SUBMISSION_SETTINGS: SubmissionSettings = {
  fetchTimeoutMs: 10_000,
  maxPageBytes: 1024 * 1024,
  maxRedirects: 3,
  allowLoopbackFetch: false,
  pageTextMaxChars: 20_000,
  leaseMs: 15_000,
  pollIntervalMs: 1_000,
  sweepIntervalMs: 60_000,
  concurrency: 2,
  maxAttempts: 5,
  userAgent: "Research-Picks-submission-fetcher/0.1 (fetches each submitted url once)",
  crashAfterOutcome: false,
};

/** SUBMIT_FETCH_TIMEOUT_MS, SUBMIT_LEASE_MS, WORKER_CONCURRENCY, WORKER_POLL_MS, SUBMIT_ALLOW_LOOPBACK. */
export function submissionSettingsFromEnv(env: NodeJS.ProcessEnv): SubmissionSettings {
  const d = DEFAULT_SUBMISSION_SETTINGS;
  const loopback = testOnlyFlag(env, "SUBMIT_ALLOW_LOOPBACK");
  return {
    ...d,
    fetchTimeoutMs: positiveInt(env, "SUBMIT_FETCH_TIMEOUT_MS", d.fetchTimeoutMs),
    allowLoopbackFetch: loopback,
    leaseMs: positiveInt(env, "SUBMIT_LEASE_MS", d.leaseMs),
    pollIntervalMs: positiveInt(env, "WORKER_POLL_MS", d.pollIntervalMs),
    concurrency: positiveInt(env, "WORKER_CONCURRENCY", d.concurrency),
    crashAfterOutcome: testOnlyFlag(env, "SUBMIT_TEST_CRASH_AFTER_OUTCOME"),
  };
}

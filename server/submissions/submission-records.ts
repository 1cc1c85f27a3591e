import { randomUUID } from "node:crypto";
import type { Candidate } from "../../pipeline/domain/candidate.ts";
import type { Scores } from "../../pipeline/domain/score.ts";
import { boardRowOf, type SubmissionRecord } from "../../pipeline/domain/submission.ts";
import type { HostLookup } from "../outbound/checked-address.ts";
import type { Store, WritesWith } from "../store/types.ts";
import type { SubmissionSettings } from "./submission-settings.ts";

// Where submissions live in the store. The record is what GET answers from; `result` is written once,
// with setIfAbsent, by whichever worker finishes first, and is the one truth about the outcome; `open`
// marks accepted submissions that are not finished, so a crash between accepting and queueing is found.
export const SUBMISSION_QUEUE = "submissions";
export const SUBMISSION_SEQUENCE = "submission";
export const recordKey = (id: number) => `submission:${id}`;
export const resultKey = (id: number) => `submission-result:${id}`;
export const openKey = (id: number) => `submission-open:${id}`;
export const OPEN_PREFIX = "submission-open";
const boardKey = (id: number) => `submission-board:${id}`;
export const BOARD_PREFIX = "submission-board";
/** Changes whenever a row is written, so every process sharing the store knows its board is stale. */
export const BOARD_VERSION_KEY = "submissions:board-version";

/** Scores a submission as a candidate; the rules scorer by default, the judge when configured. */
export type SubmissionScorer = (candidate: Candidate) => Promise<Scores>;

/** What the service, the worker and the processing of one submission share. */
export interface SubmissionDeps {
  store: Store;
  settings: SubmissionSettings;
  score: SubmissionScorer;
  lookup: HostLookup;
  now: () => number;
  log: (message: string) => void;
  /**
   * What is recorded in the same transaction as a submission's score (the `submission.scored`
   * event and its fan-out), so that a worker dying in between cannot leave one without the other.
   */
  writesWithScore?: (record: SubmissionRecord) => Promise<WritesWith>;
  /** Called once a submission is scored, by the worker whose outcome was recorded (webhooks). */
  onScored?: (record: SubmissionRecord) => Promise<void>;
}

export const isoNow = (deps: Pick<SubmissionDeps, "now">): string => new Date(deps.now()).toISOString();

export const idOfKey = (key: string): number => Number(key.slice(key.lastIndexOf(":") + 1));

/**
 * Writes a finished record and everything that follows from it. Repeating it writes the same values,
 * so a worker that crashed halfway through can run it again.
 */
export async function settle(deps: SubmissionDeps, final: SubmissionRecord): Promise<void> {
  const { store } = deps;
  await store.setItem(recordKey(final.id), final);
  const row = boardRowOf(final);
  if (row) {
    await store.setItem(boardKey(final.id), row);
    await store.setItem(BOARD_VERSION_KEY, randomUUID());
  }
  await store.removeItem(openKey(final.id));
}

/**
 * Records the outcome unless another worker already did; settles whichever outcome won. A failure's
 * detail (what the public answer leaves out) is logged once, by the worker whose outcome won.
 */
export async function finish(deps: SubmissionDeps, final: SubmissionRecord): Promise<SubmissionRecord> {
  const also = final.status === "scored" ? await deps.writesWithScore?.(final) : undefined;
  const won = await deps.store.setIfAbsentWith(resultKey(final.id), final, also ?? {});
  // Test-only: dies the way a killed worker would, right after the outcome is committed.
  if (won && deps.settings.crashAfterOutcome) process.kill(process.pid, "SIGKILL");
  if (won && final.failure?.detail) {
    const { code, detail } = final.failure;
    deps.log(JSON.stringify({ event: "submission_failed", submission_id: final.id, code, detail }));
  }
  const result = won ? final : ((await deps.store.getItem<SubmissionRecord>(resultKey(final.id))) ?? final);
  await settle(deps, result);
  return result;
}

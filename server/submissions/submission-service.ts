import type { Candidate } from "../../pipeline/domain/candidate.ts";
import type { Rubric } from "../../pipeline/domain/rubric.ts";
import { compileRubric, scoreWith } from "../../pipeline/domain/scorer.ts";
import {
  type LeaderboardEntry,
  newSubmission,
  rankBoard,
  type SubmissionRecord,
  type SubstrateSubmission,
} from "../../pipeline/domain/submission.ts";
import { type HostLookup, systemLookup } from "../outbound/checked-address.ts";
import type { Store } from "../store/types.ts";
import { createBoardCache } from "./leaderboard-cache.ts";
import {
  isoNow,
  openKey,
  recordKey,
  SUBMISSION_QUEUE,
  SUBMISSION_SEQUENCE,
  type SubmissionDeps,
  type SubmissionScorer,
} from "./submission-records.ts";
import { DEFAULT_SUBMISSION_SETTINGS, type SubmissionSettings } from "./submission-settings.ts";

export interface SubmissionService {
  readonly deps: SubmissionDeps;
  /** Accepts a valid submission: a new id, a queued record, and a place in the queue. */
  submit(input: SubstrateSubmission): Promise<SubmissionRecord>;
  find(id: number): Promise<SubmissionRecord | null>;
  leaderboard(limit: number): Promise<{ total: number; entries: LeaderboardEntry[] }>;
  /** Calls `listener` after each accepted submission, so a worker in this process starts at once. */
  onQueued(listener: () => void): () => void;
}

export interface SubmissionServiceOptions {
  settings?: Partial<SubmissionSettings>;
  /** How a fetched runtime is scored: rulesScorer(rubric), or the judge (cli/worker-command.ts). */
  score: SubmissionScorer;
  lookup?: HostLookup;
  /** Recorded with a score (webhooks: the `submission.scored` event). */
  writesWithScore?: SubmissionDeps["writesWithScore"];
  /** Called once a submission is scored (webhooks: wake the delivery worker). */
  onScored?: SubmissionDeps["onScored"];
}

/** The deterministic rules scorer over a rubric the caller loaded (the published one, in the CLI). */
export function rulesScorer(rubric: Rubric): SubmissionScorer {
  const compiled = compileRubric(rubric);
  return async (candidate: Candidate) => scoreWith(compiled, candidate);
}

export function createSubmissionService(
  base: { store: Store; now: () => number; log: (message: string) => void },
  options: SubmissionServiceOptions,
): SubmissionService {
  const deps: SubmissionDeps = {
    ...base,
    settings: { ...DEFAULT_SUBMISSION_SETTINGS, ...options.settings },
    score: options.score,
    lookup: options.lookup ?? systemLookup,
    ...(options.writesWithScore ? { writesWithScore: options.writesWithScore } : {}),
    ...(options.onScored ? { onScored: options.onScored } : {}),
  };
  const { store } = deps;
  const queue = store.queue(SUBMISSION_QUEUE);
  const board = createBoardCache(store);
  const listeners = new Set<() => void>();

  return {
    deps,
    async submit(input) {
      const id = await store.next(SUBMISSION_SEQUENCE);
      const record = newSubmission(id, input, isoNow(deps));
      // The open mark first: whatever crash follows, a worker's sweep finds the id and finishes it.
      await store.setItem(openKey(id), 1);
      await store.setItem(recordKey(id), record);
      await queue.push(String(id));
      for (const listener of listeners) listener();
      return record;
    },
    find: (id) => store.getItem<SubmissionRecord>(recordKey(id)),
    async leaderboard(limit) {
      const rows = await board.rows();
      return { total: rows.length, entries: rankBoard(rows, limit) };
    },
    onQueued(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

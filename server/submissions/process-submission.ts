import type { Candidate } from "../../pipeline/domain/candidate.ts";
import { advance, type SubmissionRecord } from "../../pipeline/domain/submission.ts";
import { safeFetch } from "../outbound/safe-fetch.ts";
import { readPage } from "./read-page.ts";
import {
  finish,
  isoNow,
  openKey,
  recordKey,
  resultKey,
  type SubmissionDeps,
  settle,
} from "./submission-records.ts";

/** How a worker's hold on one submission shows through to the work. */
export interface WorkControl {
  /** Aborted when the worker lost its lease: stop, write nothing more. */
  signal: AbortSignal;
  /** Renews the lease; false when it is lost. */
  holds(): Promise<boolean>;
}

export type ProcessOutcome = "finished" | "missing" | "lease-lost";

function candidateOf(record: SubmissionRecord, pageText: string | null): Candidate {
  return {
    id: `submission-${record.id}`,
    title: record.runtime_name,
    summary: record.description,
    authors: [record.vendor],
    categories: [],
    ...(pageText === null ? {} : { comment: pageText }),
  };
}

/**
 * Takes one submission from wherever it stopped to `scored` or `failed`. Safe to run again after a
 * crash at any point: a recorded outcome is only settled again, never recomputed, and the outcome is
 * recorded with setIfAbsent, so two workers can never both score one submission.
 */
export async function processSubmission(
  deps: SubmissionDeps,
  id: number,
  control: WorkControl,
): Promise<ProcessOutcome> {
  const { store, settings } = deps;
  const done = await store.getItem<SubmissionRecord>(resultKey(id));
  if (done) {
    await settle(deps, done);
    return "finished";
  }
  let record = await store.getItem<SubmissionRecord>(recordKey(id));
  if (!record) {
    // Accepted but never written: the process died between the open mark and the record.
    await store.removeItem(openKey(id));
    return "missing";
  }
  if (record.attempts >= settings.maxAttempts) {
    const reason =
      `Work on this submission was interrupted ${record.attempts} times; check that the url serves an ` +
      "ordinary HTML or text page and submit again.";
    await finish(deps, advance(record, "failed", isoNow(deps), { failure: { code: "gave_up", reason } }));
    return "finished";
  }
  if (!(await control.holds())) return "lease-lost";
  record = advance(record, "fetching", isoNow(deps), { attempts: record.attempts + 1 });
  await store.setItem(recordKey(id), record);

  const fetched = await safeFetch(record.url, {
    timeoutMs: settings.fetchTimeoutMs,
    maxBytes: settings.maxPageBytes,
    maxRedirects: settings.maxRedirects,
    allowLoopback: settings.allowLoopbackFetch,
    lookup: deps.lookup,
    userAgent: settings.userAgent,
    signal: control.signal,
  });
  if (!fetched.ok) {
    const final = advance(record, "failed", isoNow(deps), { failure: fetched.failure });
    if ((await finish(deps, final)) === final) deps.log(`submission ${id} failed: ${fetched.failure.code}`);
    return "finished";
  }
  const reading = readPage(fetched.page, settings.pageTextMaxChars);
  if (!(await control.holds())) return "lease-lost";
  record = advance(record, "scoring", isoNow(deps), { page: reading.summary });
  await store.setItem(recordKey(id), record);

  const scores = await deps.score(candidateOf(record, reading.text));
  const at = isoNow(deps);
  const final = advance(record, "scored", at, {
    scores,
    scored_at: at,
    basis: reading.text === null ? "description" : "description_and_page",
    note: reading.note,
  });
  const result = await finish(deps, final);
  if (result === final) {
    deps.log(`submission ${id} scored: total ${scores.total}`);
    await deps.onScored?.(final).catch((error) => deps.log(`submission ${id}: onScored: ${error}`));
  }
  return "finished";
}

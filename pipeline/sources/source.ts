import type { CandidateBatch } from "../domain/candidate.ts";

/** Where a day's candidates come from: the embedded sample, a listing file, or (later) arXiv itself. */
export interface CandidateSource {
  /** Shown in snapshots and run records, e.g. `sample` or `file:listing.jsonl`. */
  readonly name: string;
  load(date: string): Promise<CandidateBatch>;
}

/** A problem with the source as a whole (unreadable file, broken JSON): the run stops, nothing is published. */
export class SourceError extends Error {
  override name = "SourceError";
}

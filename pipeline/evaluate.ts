// `picks eval`: each labelled day is read, screened exactly as `picks curate` screens it (same source
// rules, scorer and selection), and measured against its labels. Nothing is published.

import { readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isCalendarDay } from "./domain/calendar.ts";
import type { SkippedRow } from "./domain/candidate.ts";
import {
  type DayMetrics,
  evaluateDay,
  type GateBounds,
  type GateResult,
  gateDays,
  type OverallMetrics,
  overallOf,
} from "./domain/evaluation.ts";
import { type LabelsFile, readLabels } from "./domain/labels.ts";
import type { Rubric } from "./domain/rubric.ts";
import type { ScoringRun } from "./domain/run-record.ts";
import type { ScorerName } from "./domain/score.ts";
import type { SelectionPolicy } from "./domain/selection.ts";
import { type CandidateScorer, screenCandidates } from "./screen.ts";
import { createFileSource } from "./sources/file-source.ts";

/** A labels file or listing that cannot be used as given: the operator has to fix the call or the file. */
export class EvalInputError extends Error {
  override name = "EvalInputError";
}

/** Reads and checks one labels file; any problem names the file. */
export async function readLabelsFile(path: string): Promise<LabelsFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new EvalInputError(
      `labels file ${path}: cannot read it (${code === "ENOENT" ? "no such file" : code})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new EvalInputError(`labels file ${path}: not valid JSON (${(error as Error).message})`);
  }
  const read = readLabels(json);
  if ("problem" in read) {
    throw new EvalInputError(`labels file ${path}: not in the labels format: ${read.problem}`);
  }
  return read.labels;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The listing a labels file names: a `--listing` path with that file name, else the name beside the
 * labels file. A name that matches none of them is the operator's to supply.
 */
export async function findListing(
  labelsPath: string,
  wanted: string,
  listings: readonly string[],
): Promise<string> {
  const named = listings.filter((path) => basename(path) === basename(wanted));
  if (named.length > 1) {
    throw new EvalInputError(
      `labels file ${labelsPath} wants listing ${wanted}, and several --listing paths have that name: ${named.join(", ")}`,
    );
  }
  if (named[0] !== undefined) return named[0];
  const beside = join(dirname(labelsPath), wanted);
  if (await isFile(beside)) return beside;
  throw new EvalInputError(
    `labels file ${labelsPath} wants listing ${wanted}, which is not beside it (${beside}); pass its path with --listing`,
  );
}

const DAY_IN_NAME = /\d{4}-\d{2}-\d{2}/;

/** The day's date from `labels-YYYY-MM-DD.json`, else from the listing's name; null when neither has one. */
export function dayFromNames(labelsPath: string, listingPath: string): string | null {
  for (const path of [labelsPath, listingPath]) {
    const found = DAY_IN_NAME.exec(basename(path))?.[0];
    if (found !== undefined && isCalendarDay(found)) return found;
  }
  return null;
}

export interface EvaluatedDay extends DayMetrics {
  date: string | null;
  labels_file: string;
  listing: string;
  /** Listing rows that could not be candidates (malformed id, missing title), as curate skips them. */
  skipped: number;
  skipped_rows: SkippedRow[];
  /** Rows whose id appeared before on the day (cross-lists): counted once. */
  duplicates: number;
  scoring: ScoringRun;
}

export interface EvalReport {
  rubric_version: string;
  scorer: ScorerName;
  /** The judge's model; null for the rules. */
  model: string | null;
  selection: SelectionPolicy;
  days: EvaluatedDay[];
  overall: OverallMetrics;
  gate: GateResult;
}

export interface EvaluateOptions {
  /** Labels files, one per day. */
  labels: readonly string[];
  /** Listings the labels files name when they are not beside them. */
  listings?: readonly string[];
  rubric: Rubric;
  /** The same policy `picks curate` would select with, passed through whole. */
  selection: SelectionPolicy;
  /** The language-model judge; absent: the rules scorer. */
  scorer?: CandidateScorer;
  bounds?: GateBounds;
  progress?: (detail: string) => void;
}

/** The name a day goes by in messages: its date, else its labels file. */
export function dayName(day: Pick<EvaluatedDay, "date" | "labels_file">): string {
  return day.date ?? basename(day.labels_file);
}

/**
 * Screens every labelled day as `picks curate` would and measures it against the labels. Every labels
 * file is read and checked before anything is scored, so a bad one fails fast.
 */
export async function evaluateLabelledDays(options: EvaluateOptions): Promise<EvalReport> {
  const progress = options.progress ?? (() => {});
  const listings = options.listings ?? [];
  for (const path of listings) {
    if (!(await isFile(path))) throw new EvalInputError(`--listing ${path}: no such file`);
  }
  const inputs = [];
  for (const labelsPath of options.labels) {
    const labels = await readLabelsFile(labelsPath);
    inputs.push({ labelsPath, labels, listing: await findListing(labelsPath, labels.listing, listings) });
  }

  const days: EvaluatedDay[] = [];
  let scoring: Pick<ScoringRun, "scorer" | "model"> = { scorer: "rules", model: null };
  for (const { labelsPath, labels, listing } of inputs) {
    const date = dayFromNames(labelsPath, listing);
    const batch = await createFileSource(listing).load(date ?? "");
    progress(`${date ?? basename(labelsPath)}: scoring ${batch.candidates.length} candidates`);
    const screen = await screenCandidates({
      candidates: batch.candidates,
      rubric: options.rubric,
      selection: options.selection,
      ...(options.scorer ? { scorer: options.scorer } : {}),
      progress,
    });
    scoring = screen.scoring;
    const metrics = evaluateDay({
      scored: screen.scored,
      decisions: screen.decisions,
      labels: labels.labels,
    });
    days.push({
      date,
      labels_file: labelsPath,
      listing,
      ...metrics,
      skipped: batch.skipped.length,
      skipped_rows: batch.skipped,
      duplicates: batch.duplicates,
      scoring: screen.scoring,
    });
  }
  const bounds = options.bounds ?? {};
  return {
    rubric_version: options.rubric.version,
    scorer: scoring.scorer,
    model: scoring.model,
    selection: options.selection,
    days,
    overall: overallOf(days),
    gate: gateDays(
      days.map((day) => ({ day: dayName(day), precision: day.precision, auc: day.auc })),
      bounds,
    ),
  };
}

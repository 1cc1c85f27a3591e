// Reading labelled days: a labels file (../shared/curation/README.md's format) and the listing it
// names. Shared by `picks eval` and `picks train`, so both find and check the same files the same way.

import { readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isCalendarDay } from "./domain/calendar.ts";
import type { CandidateBatch } from "./domain/candidate.ts";
import { type LabelsFile, readLabels } from "./domain/labels.ts";
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

export async function isFile(path: string): Promise<boolean> {
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

/** A labels file with the listing it names, read and screened into candidates as curate would. */
export interface LabelledListing {
  labels_file: string;
  labels: LabelsFile;
  listing: string;
  /** From the file names; null when neither carries a date. */
  date: string | null;
  batch: CandidateBatch;
}

/** Reads one labels file and its listing; every problem names the file. */
export async function readLabelledListing(
  labelsPath: string,
  listings: readonly string[],
): Promise<LabelledListing> {
  const labels = await readLabelsFile(labelsPath);
  const listing = await findListing(labelsPath, labels.listing, listings);
  const date = dayFromNames(labelsPath, listing);
  const batch = await createFileSource(listing).load(date ?? "");
  return { labels_file: labelsPath, labels, listing, date, batch };
}

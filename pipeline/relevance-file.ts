// Reading and writing the relevance model (data/models/relevance-YYYY.MM.N.json) and reading the labelled
// days it learns from. The model's logic is in domain/relevance-*.ts; this file only does the I/O.

import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import type { GateInputDay } from "./domain/promotion-gate.ts";
import {
  type CompiledRelevance,
  compileRelevance,
  type RelevanceModel,
  readRelevanceModel,
} from "./domain/relevance-model.ts";
import { EvalInputError, type LabelledListing, readLabelledListing } from "./labels-file.ts";
import { projectPath } from "./project-root.ts";

export const MODELS_DIR = projectPath("data", "models");
/** Where `picks label` writes the operator's labels, read by `picks train` beside the files it is given. */
export const OPERATOR_LABELS_DIR = projectPath("data", "labels");

/** A model file that cannot be used: curate stops before publishing, naming the file and the fallback. */
export class ModelFileError extends Error {
  override name = "ModelFileError";
  /** What is wrong with the file, without its path. */
  readonly why: string;
  constructor(message: string, why = message) {
    super(message);
    this.why = why;
  }
}

const VERSION_IN_NAME = /^relevance-(\d{4})\.(\d{2})\.(\d+)\.json$/;

/** Orders two versions, relevance-YYYY.MM.N, oldest first (by number: 2026.11.10 after 2026.11.9). */
export function compareVersions(a: string, b: string): number {
  const key = (version: string) => (VERSION_IN_NAME.exec(`${version}.json`) ?? []).slice(1).map(Number);
  const [x, y] = [key(a), key(b)];
  return (x[0] ?? 0) - (y[0] ?? 0) || (x[1] ?? 0) - (y[1] ?? 0) || (x[2] ?? 0) - (y[2] ?? 0);
}

/** The shipped model: the newest `relevance-YYYY.MM.N.json` in data/models/, by version. */
export async function newestModelPath(dir = MODELS_DIR): Promise<string> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => VERSION_IN_NAME.test(name));
  names.sort((a, b) => compareVersions(a.slice(0, -".json".length), b.slice(0, -".json".length)));
  const newest = names.at(-1);
  if (newest === undefined) {
    throw new ModelFileError(
      `no relevance model (relevance-YYYY.MM.N.json) in ${dir}; \`--ranker rules\` ranks without one`,
    );
  }
  return join(dir, newest);
}

/** The next version for the month of `now`: relevance-YYYY.MM.N, N one past the newest in `dir`. */
export async function nextModelVersion(now: Date, dir = MODELS_DIR): Promise<string> {
  const month = `${now.getUTCFullYear()}.${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
  const names = await readdir(dir).catch(() => [] as string[]);
  const taken = names.flatMap((name) => {
    const match = VERSION_IN_NAME.exec(name);
    return match && `${match[1]}.${match[2]}` === month ? [Number(match[3])] : [];
  });
  return `relevance-${month}.${Math.max(0, ...taken) + 1}`;
}

/** Reads and checks a model file; every problem names the file and the fallback. */
export async function loadRelevanceModel(path: string): Promise<CompiledRelevance> {
  return compileRelevance(await readModelFile(path));
}

/** A model file read and checked against its schema; every problem names the file and the fallback. */
export async function readModelFile(path: string): Promise<RelevanceModel> {
  const fail = (why: string) =>
    new ModelFileError(`relevance model ${path}: ${why}; \`--ranker rules\` ranks without it`, why);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw fail(`cannot read it (${code === "ENOENT" ? "no such file" : code})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw fail(`not valid JSON (${(error as Error).message})`);
  }
  const read = readRelevanceModel(json);
  if ("problem" in read) throw fail(`not a relevance model: ${read.problem}`);
  return read.model;
}

/** Where `picks train` leaves a model the gate did not promote: beside the models, never read as one. */
export const candidatePath = (dir: string, version: string): string =>
  join(dir, "candidates", `${version}.json`);

/**
 * Makes the candidate at `path` the newest model in `dir`. The file is read back and checked against the
 * model schema first: a candidate that fails it is never promoted.
 */
export async function promoteCandidate(path: string, dir = MODELS_DIR): Promise<string> {
  const model = await readModelFile(path).catch((error: unknown) => {
    if (!(error instanceof ModelFileError)) throw error;
    throw new ModelFileError(`candidate ${path} not promoted: ${error.why}`);
  });
  const target = join(dir, `${model.version}.json`);
  await writeFileAtomic(target, await readFile(path, "utf8"));
  return target;
}

export interface ReadLabelledDays {
  days: Array<GateInputDay & { labels_file: string; listing: string }>;
  /** Per labels file, the labelled ids its listing does not hold: reported, then ignored. */
  missing: Array<{ labels_file: string; ids: string[] }>;
}

/** The operator's labels files in data/labels/ (none when the folder does not exist). */
export async function operatorLabelFiles(dir = OPERATOR_LABELS_DIR): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((name) => /^labels-.*\.json$/.test(name))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * Each labelled day's papers with their labels, the text the ranker reads beside the expert's judgement.
 * Two files for the same day are refused: a day must count once.
 */
export function labelledDaysOf(reads: readonly LabelledListing[]): ReadLabelledDays {
  const result: ReadLabelledDays = { days: [], missing: [] };
  const seen = new Map<string, string>();
  for (const { labels_file: labelsPath, labels, listing, batch, ...read } of reads) {
    const date = read.date ?? basename(labelsPath);
    const earlier = seen.get(date);
    if (earlier !== undefined) {
      throw new EvalInputError(`labels file ${labelsPath}: day ${date} is already labelled by ${earlier}`);
    }
    seen.set(date, labelsPath);
    const byId = new Map(batch.candidates.map((candidate) => [candidate.id, candidate]));
    const missing = Object.keys(labels.labels)
      .filter((id) => !byId.has(id))
      .sort();
    if (missing.length > 0) result.missing.push({ labels_file: labelsPath, ids: missing });
    const papers = batch.candidates.flatMap((candidate) => {
      const label = labels.labels[candidate.id];
      return label ? [{ paper: candidate, label: label.label, reg_fit: label.reg_fit }] : [];
    });
    result.days.push({ date, papers, labels_file: labelsPath, listing });
  }
  return result;
}

/** Reads the labels files and their listings, then their labelled days (`labelledDaysOf`). */
export async function readLabelledDays(
  labelsPaths: readonly string[],
  listings: readonly string[] = [],
): Promise<ReadLabelledDays> {
  const reads: LabelledListing[] = [];
  for (const path of labelsPaths) reads.push(await readLabelledListing(path, listings));
  return labelledDaysOf(reads);
}

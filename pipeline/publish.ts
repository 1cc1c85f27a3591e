import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { FILE_SCHEMAS, type FileKind } from "./domain/json-schemas.ts";
import type { RunRecord } from "./domain/run-record.ts";
import type { SearchIndexRun } from "./domain/search-index.ts";
import { type DailySnapshot, DailySnapshotSchema } from "./domain/snapshot.ts";
import { buildSearchIndex } from "./search-index.ts";

// Only the first error is reported, and each schema is compiled once per run: skip the work of
// collecting every error and of optimising code that runs a handful of times.
const ajv = new Ajv2020({ allErrors: false, strict: false, code: { optimize: false } });
const validators = new Map<FileKind, ValidateFunction>();

function validatorFor(kind: FileKind): ValidateFunction {
  let validate = validators.get(kind);
  if (!validate) {
    validate = ajv.compile(FILE_SCHEMAS[kind]);
    validators.set(kind, validate);
  }
  return validate;
}

/** Throws when `value` does not match the published JSON Schema of its kind. */
export function assertValidFile(kind: FileKind, value: unknown, path: string): void {
  const validate = validatorFor(kind);
  if (!validate(value)) {
    const first = validate.errors?.[0];
    throw new Error(
      `refusing to write ${path}: ${first?.instancePath || "/"} ${first?.message ?? "is invalid"}`,
    );
  }
}

/** A file to publish: where it goes, what it holds, and the schema it must pass. */
export interface PlannedFile {
  path: string;
  kind: FileKind;
  value: unknown;
}

/**
 * Writes one file atomically: a temporary sibling is written and flushed, then renamed over the target,
 * so readers and crashes see either the old file or the new one, never a torn one.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(temp, "w");
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, path);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes temporary files that a killed run left behind in `dir` (their names carry the writer's
 * pid; a live writer's files are left alone), so they never reach a static host.
 */
export async function removeStaleTemps(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const stale = names.filter((name) => {
    const pid = /\.(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name)?.[1];
    return pid !== undefined && !isRunning(Number(pid));
  });
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
  return stale;
}

const DATED = /^\d{4}-\d{2}-\d{2}\.json$/;

/**
 * The archive's search index after this run: every dated day on disk, with the days being published
 * over them. Null when no dated day is being published (nothing the index holds can have changed).
 */
async function planSearchIndex(
  files: readonly PlannedFile[],
): Promise<{ path: string; content: string; run: SearchIndexRun } | null> {
  const planned = files.filter((file) => file.kind === "daily" && DATED.test(basename(file.path)));
  const first = planned[0];
  if (!first) return null;
  const dailyDir = dirname(first.path);
  const byDate = new Map<string, DailySnapshot>();
  const names = await readdir(dailyDir).catch(() => [] as string[]);
  for (const name of names.filter((entry) => DATED.test(entry))) {
    try {
      const day = JSON.parse(await readFile(join(dailyDir, name), "utf8")) as DailySnapshot;
      if (Array.isArray(day?.picks)) byDate.set(name.slice(0, 10), day);
    } catch {
      // An unreadable day is left out here as it is left out of recent.json and stats.json.
    }
  }
  for (const file of planned) byDate.set(basename(file.path).slice(0, 10), file.value as DailySnapshot);
  const generatedAt = planned
    .map((file) => (file.value as DailySnapshot).generated_at)
    .reduce((a, b) => (a > b ? a : b));
  const built = buildSearchIndex([...byDate.values()], generatedAt);
  const path = join(dirname(dailyDir), "search-index.json");
  return {
    path,
    content: built.content,
    run: { path, documents: built.documents, bytes: built.bytes, gzip_bytes: built.gzipBytes },
  };
}

/**
 * Validates every planned file first, then writes them one by one; a failed check writes nothing.
 * When dated days are among them, the archive's search index is rebuilt and written after the
 * snapshots and before the run record, which names it and gives its size.
 */
export async function publishFiles(files: readonly PlannedFile[]): Promise<void> {
  for (const dir of new Set(files.map((file) => dirname(file.path)))) await removeStaleTemps(dir);
  const search = await planSearchIndex(files);
  const withIndex = files.map((file): PlannedFile => {
    if (!search || file.kind !== "run") return file;
    const record = file.value as RunRecord;
    return { ...file, value: { ...record, files: [...record.files, search.path], search_index: search.run } };
  });
  const contents = withIndex.map((file) => {
    assertValidFile(file.kind, file.value, file.path);
    // Snapshots are served to machines: compact. Run records are read by the operator: indented.
    return file.kind === "run" ? `${JSON.stringify(file.value, null, 2)}\n` : JSON.stringify(file.value);
  });
  const writes = withIndex.map((file, index) => ({ path: file.path, content: contents[index] as string }));
  if (search) {
    const record = withIndex.findIndex((file) => file.kind === "run");
    const entry = { path: search.path, content: search.content };
    if (record === -1) writes.push(entry);
    else writes.splice(record, 0, entry);
  }
  for (const write of writes) await writeFileAtomic(write.path, write.content);
}

/** Reads every published daily snapshot under `dailyDir`; files that do not parse are reported, not used. */
export async function readDailySnapshots(
  dailyDir: string,
): Promise<{ days: DailySnapshot[]; unreadable: string[] }> {
  let names: string[];
  try {
    names = await readdir(dailyDir);
  } catch (error) {
    // Only a folder that does not exist means no days yet. Any other failure (permissions, a file where
    // the folder should be) must stop the run: rebuilding recent.json and stats.json from today alone
    // would erase the published history.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { days: [], unreadable: [] };
    throw new Error(`Cannot read the published days in ${dailyDir}: ${(error as Error).message}`);
  }
  const days: DailySnapshot[] = [];
  const unreadable: string[] = [];
  for (const name of names.filter((entry) => /^\d{4}-\d{2}-\d{2}\.json$/.test(entry)).sort()) {
    const path = join(dailyDir, name);
    try {
      days.push(DailySnapshotSchema.parse(JSON.parse(await readFile(path, "utf8"))));
    } catch {
      unreadable.push(path);
    }
  }
  return { days, unreadable };
}

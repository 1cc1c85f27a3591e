import { readdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { writeFileAtomic } from "./atomic-write.ts";
import { FILE_SCHEMAS, type FileKind } from "./domain/json-schemas.ts";
import { type DailySnapshot, DailySnapshotSchema } from "./domain/snapshot.ts";

export { writeFileAtomic };

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

/** A file written as it is, after the checked files and before the run record (the search index). */
export interface RawFile {
  path: string;
  content: string;
}

/**
 * Validates every planned file first, then writes them one by one; a failed check writes nothing.
 * `raw` files (already built and checked by their maker) go after the snapshots and before the run
 * record, which names them.
 */
export async function publishFiles(
  files: readonly PlannedFile[],
  raw: readonly RawFile[] = [],
): Promise<void> {
  const all = [...files.map((file) => file.path), ...raw.map((file) => file.path)];
  for (const dir of new Set(all.map((path) => dirname(path)))) await removeStaleTemps(dir);
  const writes = files.map((file) => {
    assertValidFile(file.kind, file.value, file.path);
    // Snapshots are served to machines: compact. Run records are read by the operator: indented.
    const content =
      file.kind === "run" ? `${JSON.stringify(file.value, null, 2)}\n` : JSON.stringify(file.value);
    return { path: file.path, content, run: file.kind === "run" };
  });
  const record = writes.findIndex((write) => write.run);
  writes.splice(record === -1 ? writes.length : record, 0, ...raw.map((file) => ({ ...file, run: false })));
  for (const write of writes) await writeFileAtomic(write.path, write.content);
}

/**
 * Reads every published daily snapshot under `dailyDir`, with each file's size by date; files that do
 * not parse are reported, not used.
 */
export async function readDailySnapshots(
  dailyDir: string,
): Promise<{ days: DailySnapshot[]; bytes: Map<string, number>; unreadable: string[] }> {
  let names: string[];
  try {
    names = await readdir(dailyDir);
  } catch (error) {
    // Only a folder that does not exist means no days yet. Any other failure (permissions, a file where
    // the folder should be) must stop the run: rebuilding recent.json and stats.json from today alone
    // would erase the published history.
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { days: [], bytes: new Map(), unreadable: [] };
    throw new Error(`Cannot read the published days in ${dailyDir}: ${(error as Error).message}`);
  }
  const days: DailySnapshot[] = [];
  const bytes = new Map<string, number>();
  const unreadable: string[] = [];
  for (const name of names.filter((entry) => /^\d{4}-\d{2}-\d{2}\.json$/.test(entry)).sort()) {
    const path = join(dailyDir, name);
    try {
      const body = await readFile(path);
      const day = DailySnapshotSchema.parse(JSON.parse(body.toString("utf8")));
      days.push(day);
      bytes.set(day.date, body.byteLength);
    } catch {
      unreadable.push(path);
    }
  }
  return { days, bytes, unreadable };
}

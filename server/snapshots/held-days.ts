import { createReadStream } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { PaperListItem, SkippedDay } from "../../pipeline/domain/api-answers.ts";
import { type IndexedDay, listItem, PICKS_INDEX_FILE } from "../../pipeline/domain/picks-index.ts";
import { AXIS_IDS } from "../../pipeline/domain/score.ts";
import { type DailySnapshot, DailySnapshotSchema } from "../../pipeline/domain/snapshot.ts";

/** A published day as the server holds it: its picks' list items, in rank order. */
export interface HeldDay {
  date: string;
  picks: readonly PaperListItem[];
}

/** A day file that is not served, and why: shown by `/health`. */
export type DayProblem = SkippedDay;

export const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.json$/;

/** Parses and checks a day's bytes; a reason instead when they are not a daily snapshot. */
export function parseDay(body: Buffer): DailySnapshot | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    return { problem: "not valid JSON" };
  }
  const parsed = DailySnapshotSchema.safeParse(json);
  return parsed.success ? parsed.data : { problem: "not a valid daily snapshot" };
}

/** The day files under `v1/daily` (`2026-11-20.json`), newest first. */
export async function dayFileNames(v1: string): Promise<string[]> {
  const names = await readdir(join(v1, "daily")).catch(() => [] as string[]);
  return names
    .filter((name) => DAY_FILE.test(name))
    .sort()
    .reverse();
}

interface IndexOnDisk {
  days: Map<string, IndexedDay>;
  mtimeMs: number;
}

/** The picks index, a line at a time; undefined when there is none or any line is not a valid day. */
async function readIndex(path: string, log: (message: string) => void): Promise<IndexOnDisk | undefined> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
  const days = new Map<string, IndexedDay>();
  try {
    const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (line === "") continue;
      const day: unknown = JSON.parse(line);
      if (!isIndexedDay(day)) throw new Error("not a day");
      days.set(day.date, day);
    }
  } catch {
    log(`ignoring v1/${PICKS_INDEX_FILE}: not a valid picks index; reading every day in full`);
    return undefined;
  }
  return { days, mtimeMs };
}

const isInt = (value: unknown): value is number => Number.isInteger(value);

/**
 * Checks what the server computes with: dates, sizes, ids and the scores it filters on. Curate built
 * the index from checked snapshots; here IndexedDaySchema's full parse of ten years (22,000 picks)
 * costs 250 to 500 ms, half the start-up budget, and this loop about 10. One bad line and the whole
 * index is ignored: every day is then read in full instead.
 */
function isIndexedDay(value: unknown): value is IndexedDay {
  const day = value as Partial<IndexedDay> | null;
  if (typeof day?.date !== "string" || !isInt(day.bytes) || !Array.isArray(day.picks)) return false;
  return day.picks.every(
    (pick: Partial<PaperListItem> | null) =>
      typeof pick?.arxiv_id === "string" &&
      pick.date === day.date &&
      isInt(pick.rank) &&
      isInt(pick.total) &&
      isInt(pick.reg_fit) &&
      typeof pick.axes === "object" &&
      pick.axes !== null &&
      AXIS_IDS.every((axis) => isInt(pick.axes?.[axis])),
  );
}

/**
 * Every published day under `v1/daily`, newest first, as list items. Days the picks index describes
 * (same size, not modified after the index was written) come from it; the rest (a day written by
 * hand, an older curate, no index at all) are read and checked in full. A day that cannot be read
 * or is not a snapshot is left out and named in `problems`; the others are served.
 */
export async function loadHeldDays(
  v1: string,
  names: readonly string[],
  log: (message: string) => void,
): Promise<{ days: HeldDay[]; problems: DayProblem[] }> {
  const dailyDir = join(v1, "daily");
  const index = await readIndex(join(v1, PICKS_INDEX_FILE), log);
  const sizes = await Promise.all(
    names.map((name) =>
      stat(join(dailyDir, name)).then(
        (info) => info,
        () => undefined,
      ),
    ),
  );
  const days: HeldDay[] = [];
  const problems: DayProblem[] = [];
  for (const [i, name] of names.entries()) {
    const date = name.slice(0, 10);
    const info = sizes[i];
    const indexed = index?.days.get(date);
    if (indexed && info && info.size === indexed.bytes && info.mtimeMs <= (index as IndexOnDisk).mtimeMs) {
      days.push({ date, picks: indexed.picks });
      continue;
    }
    let body: Buffer;
    try {
      body = await readFile(join(dailyDir, name));
    } catch (error) {
      problems.push({
        file: name,
        reason: `unreadable (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      });
      continue;
    }
    const day = parseDay(body);
    if ("problem" in day) {
      problems.push({ file: name, reason: day.problem });
      continue;
    }
    days.push({ date, picks: day.picks.map(listItem) });
  }
  for (const problem of problems) log(`not serving ${problem.file}: ${problem.reason}`);
  return { days, problems };
}

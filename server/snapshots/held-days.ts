import { createInterface } from "node:readline";
import type { PaperListItem, SkippedDay } from "../../pipeline/domain/api-answers.ts";
import { type IndexedDay, listItem, PICKS_INDEX_FILE } from "../../pipeline/domain/picks-index.ts";
import { DAY_KEY } from "../../pipeline/domain/published-files.ts";
import { AXIS_IDS } from "../../pipeline/domain/score.ts";
import { type DailySnapshot, DailySnapshotSchema } from "../../pipeline/domain/snapshot.ts";
import { OriginError } from "../../pipeline/origin/origin.ts";
import type { LoadView } from "./load-view.ts";
import type { SourceEntry } from "./snapshot-source.ts";

/** A published day as the server holds it: its picks' list items, in rank order. */
export interface HeldDay {
  date: string;
  picks: readonly PaperListItem[];
}

/** A day file that is not served, and why: shown by `/health`. */
export type DayProblem = SkippedDay;

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

/** The day files the source lists (`2026-11-20.json`), newest first. */
export function dayFileNames(listing: ReadonlyMap<string, SourceEntry>): string[] {
  const names: string[] = [];
  for (const key of listing.keys()) {
    const date = DAY_KEY.exec(key)?.[1];
    if (date !== undefined) names.push(`${date}.json`);
  }
  return names.sort().reverse();
}

interface IndexRead {
  days: Map<string, IndexedDay>;
  modifiedMs: number;
}

/** The picks index, a line at a time; undefined when there is none or any line is not a valid day. */
async function readIndex(view: LoadView, log: (message: string) => void): Promise<IndexRead | undefined> {
  const key = `v1/${PICKS_INDEX_FILE}`;
  const entry = view.listing.get(key);
  if (!entry) return undefined;
  const days = new Map<string, IndexedDay>();
  // A line at a time: ten years of index are megabytes that need never be one string.
  const stream = await view.stream(key).catch(() => undefined);
  if (!stream) return undefined;
  try {
    const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (line === "") continue;
      const day: unknown = JSON.parse(line);
      if (!isIndexedDay(day)) throw new Error("not a day");
      days.set(day.date, day);
    }
  } catch {
    log(`ignoring ${key}: not a valid picks index; reading every day in full`);
    return undefined;
  } finally {
    // A bad line stops the read early: the rest of the file (or the bucket's connection) is let go.
    stream.destroy();
  }
  return { days, modifiedMs: entry.modifiedMs };
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
 * Every published day, newest first, as list items. Days the picks index describes (same size, not
 * modified after the index was written) come from it; the rest (a day written by hand, an older
 * curate, no index at all) are read and checked in full. A day that cannot be read or is not a
 * snapshot is left out and named in `problems`; the others are served.
 */
export async function loadHeldDays(
  view: LoadView,
  names: readonly string[],
  log: (message: string) => void,
): Promise<{ days: HeldDay[]; problems: DayProblem[] }> {
  const index = await readIndex(view, log);
  const days: HeldDay[] = [];
  const problems: DayProblem[] = [];
  for (const name of names) {
    const date = name.slice(0, 10);
    const info = view.listing.get(`v1/daily/${name}`);
    const indexed = index?.days.get(date);
    if (
      indexed &&
      info &&
      info.size === indexed.bytes &&
      info.modifiedMs <= (index as IndexRead).modifiedMs
    ) {
      days.push({ date, picks: indexed.picks });
      continue;
    }
    let body: Buffer | undefined;
    try {
      body = await view.read(`v1/daily/${name}`);
    } catch (error) {
      // A store out of reach, or bytes that are not the manifest's, fail the whole load (tried again
      // later); a file the folder cannot give is this day's problem alone.
      const code = (error as NodeJS.ErrnoException).code;
      if (error instanceof OriginError || code === undefined) throw error;
      problems.push({ file: name, reason: `unreadable (${code})` });
      continue;
    }
    if (!body) {
      problems.push({ file: name, reason: "unreadable (gone)" });
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

import type { Readable } from "node:stream";
import pLimit from "p-limit";
import type { PaperListItem, SkippedDay } from "../../pipeline/domain/api-answers.ts";
import { type IndexedDay, listItem, PICKS_INDEX_FILE } from "../../pipeline/domain/picks-index.ts";
import { DAY_KEY } from "../../pipeline/domain/published-files.ts";
import { AXIS_IDS } from "../../pipeline/domain/score.ts";
import { type DailySnapshot, DailySnapshotSchema } from "../../pipeline/domain/snapshot.ts";
import { IntegrityError, OriginError } from "../../pipeline/origin/origin.ts";
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

/**
 * The lines of a stream of UTF-8 text, each decoded once. readline decodes every chunk, then splits
 * it with a pattern: for the ten-year index that was a third of its read, beside the JSON parse.
 */
async function* linesOf(stream: Readable): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let at = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, at)) {
      parts.push(chunk.subarray(at, end));
      const line = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
      parts = [];
      yield line.toString("utf8", 0, line.at(-1) === 13 ? line.length - 1 : line.length);
      at = end + 1;
    }
    if (at < chunk.length) parts.push(chunk.subarray(at));
  }
  if (parts.length > 0) yield Buffer.concat(parts).toString("utf8");
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
    for await (const line of linesOf(stream)) {
      if (line === "") continue;
      const day: unknown = JSON.parse(line);
      if (!isIndexedDay(day)) throw new Error("not a day");
      days.set(day.date, day);
    }
  } catch (error) {
    const why = error instanceof IntegrityError ? error.message : "not a valid picks index";
    log(`ignoring ${key}: ${why}; reading every day in full`);
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

/** A day as the last load held it: reused while the source's version of its file is the same. */
export interface HeldDayVersion {
  version: string;
  picks: readonly PaperListItem[];
}

/** Full reads of days in flight at once: a history of absent days costs seconds, not minutes. */
const DAY_READS = 16;

/** A day file a load reads in full: one the picks index does not describe and the last load did not hold. */
interface DayRead {
  name: string;
  version: string;
  /** The last load's list items of this day, kept should its new bytes not be the manifest's. */
  known: HeldDayVersion | undefined;
}

/** What a load of the days finds without reading them, and the day files it must read in full. */
export interface HeldDaysPlan {
  names: readonly string[];
  found: Map<string, HeldDayVersion>;
  reads: DayRead[];
}

/**
 * Reads the picks index and plans a load of every published day, newest first. Days the index
 * describes (same size, not modified after the index was written) come from it; days the last load
 * held at the same version are kept as they were; the rest (a day written by hand, an older curate,
 * no index at all) are left to `readHeldDays`.
 */
export async function planHeldDays(
  view: LoadView,
  names: readonly string[],
  log: (message: string) => void,
  previous: ReadonlyMap<string, HeldDayVersion> = new Map(),
): Promise<HeldDaysPlan> {
  const index = await readIndex(view, log);
  const found = new Map<string, HeldDayVersion>();
  const reads: DayRead[] = [];
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
      found.set(date, { version: info.version, picks: indexed.picks });
      continue;
    }
    const known = previous.get(date);
    if (known && info && known.version === info.version) {
      found.set(date, known);
      continue;
    }
    reads.push({ name, version: info?.version ?? "", known });
  }
  return { names, found, reads };
}

/**
 * Every published day of `plan`, newest first, as list items: the planned reads are made and checked
 * in full, a few at a time. A day that cannot be read or is not a snapshot is left out and named in
 * `problems`; a day whose bytes are not the manifest's keeps its last good list items, if the last
 * load had any. The others are served.
 */
export async function readHeldDays(
  view: LoadView,
  plan: HeldDaysPlan,
  log: (message: string) => void,
  closed: () => boolean = () => false,
): Promise<{ days: HeldDay[]; problems: DayProblem[]; versions: Map<string, HeldDayVersion> }> {
  const found = new Map(plan.found);
  const problems = new Map<string, DayProblem>();
  const limit = pLimit(DAY_READS);
  const reads = plan.reads.map(({ name, version, known }) =>
    limit(async () => {
      const date = name.slice(0, 10);
      // A server stopping mid-load stops reading: SIGTERM is honoured within seconds.
      if (closed()) throw new Error("the snapshots were closed during the load");
      let body: Buffer | undefined;
      try {
        body = await view.read(`v1/daily/${name}`);
      } catch (error) {
        if (error instanceof IntegrityError) {
          // The last good copy, under its own version: the next load tries the file again.
          if (known) found.set(date, known);
          else problems.set(date, { file: name, reason: "does not match its hash in the manifest" });
          return;
        }
        // A store out of reach fails the whole load (tried again later); a file the folder cannot
        // give is this day's problem alone.
        const code = (error as NodeJS.ErrnoException).code;
        if (error instanceof OriginError || code === undefined) throw error;
        problems.set(date, { file: name, reason: `unreadable (${code})` });
        return;
      }
      if (!body) {
        problems.set(date, { file: name, reason: "unreadable (gone)" });
        return;
      }
      const day = parseDay(body);
      if ("problem" in day) problems.set(date, { file: name, reason: day.problem });
      else found.set(date, { version, picks: day.picks.map(listItem) });
    }),
  );
  try {
    await Promise.all(reads);
  } finally {
    limit.clearQueue();
  }
  const days: HeldDay[] = [];
  const versions = new Map<string, HeldDayVersion>();
  const listed: DayProblem[] = [];
  for (const name of plan.names) {
    const date = name.slice(0, 10);
    const held = found.get(date);
    const problem = problems.get(date);
    if (held) {
      days.push({ date, picks: held.picks });
      versions.set(date, held);
    } else if (problem) listed.push(problem);
  }
  // A few named, then a count: a manifest naming thousands of absent days is one problem, not a flood.
  for (const problem of listed.slice(0, 10)) log(`not serving ${problem.file}: ${problem.reason}`);
  if (listed.length > 10) log(`not serving ${listed.length - 10} more day files (see /health)`);
  return { days, problems: listed, versions };
}

import { type BenchNote, buildNote } from "../../pipeline/domain/bench-note.ts";
import { weekDays } from "../../pipeline/domain/bench-week.ts";
import { addDays } from "../../pipeline/domain/calendar.ts";
import type { BenchStore } from "./bench-store.ts";

// How far back the note looks for the day before its week (a public rubric change, the citation
// count a change is measured from): long enough to bridge holidays.
const LOOKBACK_DAYS = 30;

/** A firm's note for an ISO week from the stored views, or null when the week does not exist. */
export async function composeNote(
  bench: BenchStore,
  firm: string,
  week: string,
  now: Date,
): Promise<BenchNote | null> {
  const days = weekDays(week);
  if (!days) return null;
  const first = days[0] as string;
  const last = days[6] as string;
  const since = addDays(first, -LOOKBACK_DAYS);
  const [views, tracking, watchlist] = await Promise.all([
    bench.days(firm, since, last),
    bench.tracking(firm, since, last),
    bench.watchlist(firm),
  ]);
  return buildNote({
    firm,
    week,
    days,
    views: views.filter((view) => view.date >= first),
    before: views.filter((view) => view.date < first).at(-1) ?? null,
    tracking,
    watchedPapers: watchlist.papers,
    builtAt: now.toISOString(),
  });
}

/**
 * Builds and stores a firm's note for a week, then `announce`s it (the `bench.note.ready` webhook);
 * null when the week does not exist.
 */
export async function buildWeeklyNote(
  bench: BenchStore,
  firm: string,
  week: string,
  now: Date,
  announce: (note: BenchNote) => Promise<unknown> = async () => {},
): Promise<BenchNote | null> {
  const note = await composeNote(bench, firm, week, now);
  if (!note) return null;
  await bench.setNote(firm, note);
  await announce(note);
  return note;
}

// arXiv's announcement schedule: which listing day a submission appears in, and which submissions a
// listing day holds. Pure: instants in, `YYYY-MM-DD` days out; no clock is read here.
//
// The schedule, from https://info.arxiv.org/help/availability.html: submissions are received until the
// 14:00 US Eastern deadline, Monday to Friday; what arrived before a deadline is announced at 20:00
// Eastern that evening, Sunday to Thursday (Friday's deadline is announced on Sunday evening, and
// nothing is announced on Friday or Saturday evenings). The listing of an announcement is dated by the
// day that follows it, as the announcement feed dates its entries (`published` = that day at 00:00
// Eastern): a listing exists for each weekday, Monday to Friday.
//
//   listing day  submissions received (Eastern)       announced (Eastern)
//   Monday       Thursday 14:00 .. Friday 14:00        Sunday 20:00
//   Tuesday      Friday 14:00 .. Monday 14:00          Monday 20:00
//   Wednesday    Monday 14:00 .. Tuesday 14:00         Tuesday 20:00
//   Thursday     Tuesday 14:00 .. Wednesday 14:00      Wednesday 20:00
//   Friday       Wednesday 14:00 .. Thursday 14:00     Thursday 20:00
//
// What the schedule cannot know: the holidays on which arXiv does not announce (it publishes them a
// year ahead, and the deadlines around them move), papers held for moderation and announced days
// later, cross-lists added after a paper's announcement, and papers withdrawn since.

import { addDays } from "./calendar.ts";

const DEADLINE_HOUR = 14;
const ANNOUNCE_HOUR = 20;
const HOUR_MS = 3_600_000;

/** 0 = Sunday .. 6 = Saturday, of a `YYYY-MM-DD` day. */
const weekday = (day: string): number => new Date(`${day}T00:00:00Z`).getUTCDay();

const isWeekday = (day: string): boolean => {
  const number = weekday(day);
  return number >= 1 && number <= 5;
};

/** The `n`th Sunday (1-based; 0 = the last) of a month, as a day of the month. */
function sunday(year: number, month: number, n: number): number {
  if (n === 0) {
    const last = new Date(Date.UTC(year, month + 1, 0));
    return last.getUTCDate() - last.getUTCDay();
  }
  const first = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((7 - first) % 7) + (n - 1) * 7;
}

/**
 * The UTC instants daylight saving time starts and ends in US Eastern time: 02:00 local on the second
 * Sunday of March to the first Sunday of November since 2007 (Energy Policy Act of 2005); the first
 * Sunday of April to the last Sunday of October from 1987 to 2006, which covers arXiv's whole history.
 */
function daylightSaving(year: number): { starts: number; ends: number } {
  const [startMonth, startSunday, endMonth, endSunday] = year >= 2007 ? [2, 2, 10, 1] : [3, 1, 9, 0];
  return {
    starts: Date.UTC(year, startMonth, sunday(year, startMonth, startSunday), 2 + 5),
    ends: Date.UTC(year, endMonth, sunday(year, endMonth, endSunday), 2 + 4),
  };
}

/** Eastern time's offset from UTC at an instant, in hours: -4 (EDT) or -5 (EST). */
export function easternOffset(instant: Date): -4 | -5 {
  const time = instant.getTime();
  const { starts, ends } = daylightSaving(instant.getUTCFullYear());
  return time >= starts && time < ends ? -4 : -5;
}

/** The UTC instant of `hour`:00 Eastern on `day`. */
export function easternTime(day: string, hour: number): Date {
  const asIfEst = new Date(`${day}T00:00:00Z`).getTime() + (hour + 5) * HOUR_MS;
  // The offset of the wall-clock hour: at 14:00 or 20:00 a change of that morning (02:00) applies.
  const offset = easternOffset(new Date(asIfEst - HOUR_MS));
  return new Date(asIfEst + (offset + 5) * -HOUR_MS);
}

/** The Eastern calendar day and hour (fractional) of an instant. */
function easternWallClock(instant: Date): { day: string; hour: number } {
  const local = new Date(instant.getTime() + easternOffset(instant) * HOUR_MS);
  const day = local.toISOString().slice(0, 10);
  return { day, hour: (local.getTime() - new Date(`${day}T00:00:00Z`).getTime()) / HOUR_MS };
}

/** The first weekday after `day`. */
function nextWeekday(day: string): string {
  let next = addDays(day, 1);
  while (!isWeekday(next)) next = addDays(next, 1);
  return next;
}

/** True for a day that has a listing: Monday to Friday (holidays aside, which the schedule cannot know). */
export function isListingDay(day: string): boolean {
  return isWeekday(day);
}

/** The listing day in which a paper submitted at `submitted` is announced. */
export function listingDayOf(submitted: Date): string {
  const { day, hour } = easternWallClock(submitted);
  const deadline = isWeekday(day) && hour < DEADLINE_HOUR ? day : nextWeekday(day);
  return nextWeekday(deadline);
}

/** The deadline day a listing day announces: the weekday before it (Friday for a Monday). */
function deadlineOf(listingDay: string): string {
  return addDays(listingDay, weekday(listingDay) === 1 ? -3 : -1);
}

/**
 * The submissions a listing day holds: those received in `[from, to)`. Throws for a day with no
 * listing (Saturday, Sunday): a caller asks only for listing days.
 */
export function submissionWindow(listingDay: string): { from: Date; to: Date } {
  if (!isListingDay(listingDay)) throw new RangeError(`${listingDay} has no arXiv listing (a weekend)`);
  const deadline = deadlineOf(listingDay);
  const previousListing = addDays(listingDay, weekday(listingDay) === 1 ? -3 : -1);
  return {
    from: easternTime(deadlineOf(previousListing), DEADLINE_HOUR),
    to: easternTime(deadline, DEADLINE_HOUR),
  };
}

/** When a listing day's announcement went out: 20:00 Eastern on the evening before it (Sunday for Monday). */
export function announcedAt(listingDay: string): Date {
  return easternTime(addDays(listingDay, -1), ANNOUNCE_HOUR);
}

/** The listing days from `from` to `to`, both included, oldest first. */
export function listingDaysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) if (isListingDay(day)) days.push(day);
  return days;
}

/** The newest listing day announced by `now`: the day the live listing holds (holidays aside). */
export function latestListingDay(now: Date): string {
  let day = addDays(now.toISOString().slice(0, 10), 1);
  while (!isListingDay(day) || announcedAt(day).getTime() > now.getTime()) day = addDays(day, -1);
  return day;
}

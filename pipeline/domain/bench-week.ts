import { addDays } from "./calendar.ts";

// ISO 8601 weeks (`2026-W47`): Monday to Sunday, week 1 holds the year's first Thursday.

export const ISO_WEEK_PATTERN = "^\\d{4}-W(0[1-9]|[1-4]\\d|5[0-3])$";

const dayNumber = (day: string): number => {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return weekday === 0 ? 7 : weekday;
};

/** The ISO week a calendar day belongs to. @example isoWeekOf("2026-11-23") // "2026-W48" */
export function isoWeekOf(day: string): string {
  const thursday = addDays(day, 4 - dayNumber(day));
  const year = Number(thursday.slice(0, 4));
  const firstThursday = addDays(`${year}-01-04`, 4 - dayNumber(`${year}-01-04`));
  const week = 1 + Math.round((Date.parse(thursday) - Date.parse(firstThursday)) / (7 * 86_400_000));
  return `${year}-W${String(week).padStart(2, "0")}`;
}

/** The Monday..Sunday of an ISO week, or null when the week does not exist (`2025-W53`). */
export function weekDays(week: string): string[] | null {
  if (!new RegExp(ISO_WEEK_PATTERN).test(week)) return null;
  const year = Number(week.slice(0, 4));
  const number = Number(week.slice(6));
  const jan4 = `${year}-01-04`;
  const monday = addDays(addDays(jan4, 1 - dayNumber(jan4)), (number - 1) * 7);
  if (isoWeekOf(monday) !== week) return null;
  return Array.from({ length: 7 }, (_, i) => addDays(monday, i));
}

/** The week before the one `day` falls in: what a Monday run builds. */
export const previousWeek = (day: string): string => isoWeekOf(addDays(day, -7));

import { LRUCache } from "lru-cache";
// The wall-clock time of an instant in a named time zone, read through Intl (no clock is read here).

export interface LocalTime {
  /** The zone as the request named it; Intl's canonical name can surprise ("Asia/Kolkata" -> "Asia/Calcutta"). */
  readonly timezone: string;
  /** ISO 8601 with offset, e.g. 2026-11-20T23:30:00-05:00. */
  readonly iso: string;
  /** English weekday name, e.g. Friday. */
  readonly weekday: string;
  /** HH:MM, for messages. */
  readonly clock: string;
  readonly isWeekend: boolean;
}

// Building a formatter costs far more than using one; zone names are few, but the bound keeps spelling
// variants ("utc", "UTC", "Utc"...) from growing the cache. Names are validated and short: a bound
// by count is one in bytes.
const formatters = new LRUCache<string, Intl.DateTimeFormat>({ max: 64 });

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      weekday: "long",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "longOffset",
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

// The answer depends only on the zone and the second (offsets change on whole seconds), and a busy
// server asks for the same second many times: formatToParts costs more than all of a request's checks.
let last: { timezone: string; second: number; value: LocalTime } | undefined;

/** Throws a RangeError for an unknown zone; requests are validated before they get here. */
export function localTime(now: Date, timezone: string): LocalTime {
  const second = Math.floor(now.getTime() / 1000);
  if (last?.timezone === timezone && last.second === second) return last.value;
  const value = computeLocalTime(now, timezone);
  last = { timezone, second, value };
  return value;
}

function computeLocalTime(now: Date, timezone: string): LocalTime {
  const formatter = formatterFor(timezone);
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(now)) parts[part.type] = part.value;
  // "GMT-05:00", or plain "GMT" at offset zero.
  const offsetName = parts.timeZoneName ?? "GMT";
  const offset = offsetName === "GMT" ? "+00:00" : offsetName.slice(3);
  const clock = `${parts.hour}:${parts.minute}`;
  const iso = `${parts.year}-${parts.month}-${parts.day}T${clock}:${parts.second}${offset}`;
  const weekday = parts.weekday ?? "";
  return {
    timezone,
    iso,
    weekday,
    clock,
    isWeekend: weekday === "Saturday" || weekday === "Sunday",
  };
}

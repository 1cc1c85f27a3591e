import { isCalendarDay } from "../pipeline/domain/calendar.ts";
import { UsageError } from "./output.ts";

/** A calendar day flag such as `--from`: YYYY-MM-DD and a real day (`2026-02-30` is refused). */
export function parseDayOption(name: string) {
  return (value: string): string => {
    if (!isCalendarDay(value))
      throw new UsageError(`Expected \`${name}\` to be YYYY-MM-DD, got \`${value}\``);
    return value;
  };
}

export const parseDateOption = parseDayOption("--date");

export function parsePortOption(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new UsageError(`Expected \`--port\` to be a whole number from 0 to 65535, got \`${value}\``);
  }
  return port;
}

export function parseIntOption(name: string, min: number, max: number) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^-?\d+$/.test(value) || number < min || number > max) {
      throw new UsageError(
        `Expected \`${name}\` to be a whole number from ${min} to ${max}, got \`${value}\``,
      );
    }
    return number;
  };
}

/** A share from 0 to 1, such as `0.9` or `.95`: metrics bounds. */
export function parseFractionOption(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value) || number > 1) {
      throw new UsageError(`Expected \`${name}\` to be a number from 0 to 1, got \`${value}\``);
    }
    return number;
  };
}

import { describe, expect, it } from "vitest";
import { addDays, isCalendarDay } from "../../../pipeline/domain/calendar.ts";
import { checkDateParam } from "../../../server/validation/date-param.ts";

describe("calendar days", () => {
  it.each([
    ["2026-11-20", true],
    ["2028-02-29", true],
    ["2026-02-29", false],
    ["2026-13-01", false],
    ["2026-00-10", false],
    ["2026-04-31", false],
    ["26-11-20", false],
    ["2026-11-20T00:00:00Z", false],
    ["", false],
  ])("isCalendarDay(%j) is %s", (value, expected) => {
    expect(isCalendarDay(value)).toBe(expected);
  });

  it("adds days across months and years", () => {
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
  });

  it.each([
    ["2026-11-20", undefined],
    ["2026-13-01", "month value is outside expected range of 1-12"],
    ["2026-02-30", "day value is outside expected range"],
    ["2026-1-01", "input is too short"],
    ["2026-1-011", "invalid character in month"],
    ["abc", "input is too short"],
    ["abcd-11-20", "invalid character in year"],
    ["2026/11/20", "invalid date separator, expected `-`"],
    ["2026-11-2x", "invalid character in day"],
    ["2026-11-200", "unexpected extra characters at the end of the input"],
  ])("the date parameter %j gets pydantic's reason %j", (value, why) => {
    const issue = checkDateParam(value);
    expect(issue?.msg).toBe(
      why === undefined ? undefined : `Input should be a valid date or datetime, ${why}`,
    );
  });
});

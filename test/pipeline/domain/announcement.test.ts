import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  announcedAt,
  easternOffset,
  isListingDay,
  latestListingDay,
  listingDayOf,
  listingDaysBetween,
  submissionWindow,
} from "../../../pipeline/domain/announcement.ts";

// Submission instants (UTC, as the arXiv API's `published` writes them) and the listing day arXiv's
// schedule gives each: the 14:00 Eastern deadline on both sides, the weekend, a Friday, and the weeks
// Eastern time changes (2025: EDT from 9 March, EST from 2 November; 2006, the older rule: 2 April).
const TABLE: [submitted: string, listing: string, why: string][] = [
  ["2025-11-24T18:59:00Z", "2025-11-25", "Monday 13:59 EST: Monday's deadline, Tuesday's listing"],
  ["2025-11-24T19:00:00Z", "2025-11-26", "Monday 14:00 EST: past the deadline"],
  ["2025-11-25T03:00:00Z", "2025-11-26", "Monday 22:00 EST, Tuesday in UTC: Tuesday's deadline"],
  ["2025-11-20T18:30:00Z", "2025-11-21", "Thursday 13:30 EST: Friday's listing"],
  ["2025-11-20T19:30:00Z", "2025-11-24", "Thursday 14:30 EST: announced Sunday, listed Monday"],
  ["2025-11-21T18:00:00Z", "2025-11-24", "Friday 13:00 EST: Monday's listing"],
  ["2025-11-21T19:00:00Z", "2025-11-25", "Friday 14:00 EST: waits for Monday's deadline"],
  ["2025-11-22T12:00:00Z", "2025-11-25", "Saturday: Monday's deadline"],
  ["2025-11-23T23:00:00Z", "2025-11-25", "Sunday 18:00 EST: Monday's deadline"],
  ["2025-07-15T17:59:00Z", "2025-07-16", "Tuesday 13:59 EDT"],
  ["2025-07-15T18:00:00Z", "2025-07-17", "Tuesday 14:00 EDT: past the deadline"],
  ["2025-03-07T18:59:00Z", "2025-03-10", "Friday 13:59 EST, before the change"],
  ["2025-03-10T17:59:00Z", "2025-03-11", "Monday 13:59 EDT, the day after the change"],
  ["2025-03-10T18:30:00Z", "2025-03-12", "Monday 14:30 EDT (13:30 had it been EST)"],
  ["2025-10-31T17:59:00Z", "2025-11-03", "Friday 13:59 EDT, before the change back"],
  ["2025-11-03T18:30:00Z", "2025-11-04", "Monday 13:30 EST (14:30 had it stayed EDT)"],
  ["2006-03-20T18:30:00Z", "2006-03-21", "2006, the older rule: still EST on 20 March"],
  ["2006-04-03T18:30:00Z", "2006-04-05", "2006: EDT from 2 April, so 14:30"],
  [
    "2025-03-07T19:30:00Z",
    "2025-03-11",
    "Friday 14:30 EST: Tuesday's listing, its window crossing the change",
  ],
  [
    "2025-10-31T18:30:00Z",
    "2025-11-04",
    "Friday 14:30 EDT: Tuesday's listing, its window crossing the change back",
  ],
];

describe("listingDayOf", () => {
  it.each(TABLE)("%s is listed on %s (%s)", (submitted, listing) => {
    expect(listingDayOf(new Date(submitted))).toBe(listing);
  });

  it("lists every submission on a weekday", () => {
    for (const [submitted] of TABLE) expect(isListingDay(listingDayOf(new Date(submitted)))).toBe(true);
  });
});

describe("easternOffset", () => {
  it("switches at 02:00 local on the second Sunday of March and the first of November", () => {
    expect(easternOffset(new Date("2025-03-09T06:59:59Z"))).toBe(-5);
    expect(easternOffset(new Date("2025-03-09T07:00:00Z"))).toBe(-4);
    expect(easternOffset(new Date("2025-11-02T05:59:59Z"))).toBe(-4);
    expect(easternOffset(new Date("2025-11-02T06:00:00Z"))).toBe(-5);
  });
});

describe("the older rule, 1987 to 2006", () => {
  it("switches on the first Sunday of April and the last Sunday of October", () => {
    expect(easternOffset(new Date("2006-04-02T06:59:59Z"))).toBe(-5);
    expect(easternOffset(new Date("2006-04-02T07:00:00Z"))).toBe(-4);
    expect(easternOffset(new Date("2006-10-29T05:59:59Z"))).toBe(-4);
    expect(easternOffset(new Date("2006-10-29T06:00:00Z"))).toBe(-5);
  });
});

describe("latestListingDay", () => {
  it.each([
    ["2025-11-25T00:59:00Z", "2025-11-24", "Monday 19:59 EST: Tuesday's listing is not out yet"],
    ["2025-11-25T01:00:00Z", "2025-11-25", "Monday 20:00 EST: Tuesday's listing is out"],
    ["2025-11-22T15:00:00Z", "2025-11-21", "Saturday: Friday's listing, announced Thursday"],
    ["2025-11-24T01:30:00Z", "2025-11-24", "Sunday 20:30 EST: Monday's listing is out"],
  ])("at %s is %s (%s)", (now, day) => {
    expect(latestListingDay(new Date(now))).toBe(day);
  });
});

describe("submissionWindow", () => {
  it("gives Monday's listing Thursday 14:00 to Friday 14:00", () => {
    const { from, to } = submissionWindow("2025-11-24");
    expect([from.toISOString(), to.toISOString()]).toEqual([
      "2025-11-20T19:00:00.000Z",
      "2025-11-21T19:00:00.000Z",
    ]);
  });

  it("gives Tuesday's listing the weekend, one hour short across the change to EDT", () => {
    const { from, to } = submissionWindow("2025-03-11");
    expect([from.toISOString(), to.toISOString()]).toEqual([
      "2025-03-07T19:00:00.000Z",
      "2025-03-10T18:00:00.000Z",
    ]);
  });

  it("refuses a weekend, which has no listing", () => {
    expect(() => submissionWindow("2025-11-22")).toThrow(/no arXiv listing/);
  });

  it("holds exactly the submissions listed on its day", () => {
    const instant = fc.date({
      min: new Date("1992-01-01T00:00:00Z"),
      max: new Date("2035-12-31T00:00:00Z"),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instant, (submitted) => {
        const day = listingDayOf(submitted);
        const { from, to } = submissionWindow(day);
        expect(from.getTime() <= submitted.getTime() && submitted.getTime() < to.getTime()).toBe(true);
        expect(listingDayOf(from)).toBe(day);
        expect(listingDayOf(new Date(to.getTime() - 1))).toBe(day);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("announcedAt and listingDaysBetween", () => {
  it("announces Monday's listing on Sunday at 20:00 Eastern", () => {
    expect(announcedAt("2025-11-24").toISOString()).toBe("2025-11-24T01:00:00.000Z");
    expect(announcedAt("2025-07-16").toISOString()).toBe("2025-07-16T00:00:00.000Z");
  });

  it("lists the weekdays of a range, oldest first", () => {
    expect(listingDaysBetween("2025-11-20", "2025-11-25")).toEqual([
      "2025-11-20",
      "2025-11-21",
      "2025-11-24",
      "2025-11-25",
    ]);
    expect(listingDaysBetween("2025-11-22", "2025-11-23")).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { localTime } from "../../../server/verify/checks/local-time.ts";
import { checkOf, followUp } from "./messages.ts";

const at = (iso: string) => new Date(iso);

describe("send window", () => {
  it.each([
    // Friday 23:30 in New York is Saturday 04:30 in UTC.
    ["2026-11-21T04:30:00Z", "UTC", "fail", "Saturday"],
    ["2026-11-21T04:30:00Z", "America/New_York", "pass", "Friday"],
    ["2026-11-21T04:30:00Z", "america/new_york", "pass", "Friday"],
    // Monday 00:30 in Tokyo is still Sunday in UTC.
    ["2026-11-22T15:30:00Z", "Asia/Tokyo", "pass", "Monday"],
    ["2026-11-22T15:30:00Z", "UTC", "fail", "Sunday"],
    // Kiritimati (UTC+14) starts its Saturday at Friday 10:00 UTC.
    ["2026-11-20T12:00:00Z", "Pacific/Kiritimati", "fail", "Saturday"],
    ["2026-11-20T12:00:00Z", "Etc/UTC", "pass", "Friday"],
    // Exact edges, including a half-hour offset and summer time.
    ["2026-11-20T18:29:59Z", "Asia/Kolkata", "pass", "Friday"],
    ["2026-11-20T18:30:00Z", "Asia/Kolkata", "fail", "Saturday"],
    ["2026-11-22T23:59:59Z", "UTC", "fail", "Sunday"],
    ["2026-11-23T00:00:00Z", "UTC", "pass", "Monday"],
    ["2026-07-10T22:30:00Z", "Europe/Berlin", "fail", "Saturday"],
    ["2026-07-10T21:30:00Z", "Europe/Berlin", "pass", "Friday"],
  ] as const)("at %s in %s with weekend_block: %s (%s)", (iso, timezone, status, weekday) => {
    const result = checkOf(followUp({ options: { weekend_block: true, timezone } }), "send_window", at(iso));
    expect(result.status).toBe(status);
    expect(result.severity).toBe(status === "fail" ? "high" : "info");
    expect(result.message).toContain(weekday);
  });

  it("passes on a weekend without weekend_block and still says which day it is", () => {
    const result = checkOf(
      followUp({ options: { timezone: "UTC" } }),
      "send_window",
      at("2026-11-21T04:30:00Z"),
    );
    expect(result.status).toBe("pass");
    expect(result.message).toContain("Saturday 04:30 in UTC");
  });

  it.each([
    ["2026-11-21T04:30:00Z", "America/New_York", "2026-11-20T23:30:00-05:00", "Friday", "America/New_York"],
    ["2026-11-21T04:30:00Z", "UTC", "2026-11-21T04:30:00+00:00", "Saturday", "UTC"],
    ["2026-11-20T18:30:00Z", "Asia/Kolkata", "2026-11-21T00:00:00+05:30", "Saturday", "Asia/Kolkata"],
    ["2026-07-10T22:30:00Z", "europe/berlin", "2026-07-11T00:30:00+02:00", "Saturday", "europe/berlin"],
  ])("reports local time of %s in %s as %s", (iso, zone, local, weekday, resolved) => {
    const time = localTime(at(iso), zone);
    expect(time).toMatchObject({ iso: local, weekday, timezone: resolved });
  });
});

import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  DISABLE_AFTER_MS,
  daysAnnouncedBefore,
  daysToAnnounce,
  isWebhookUrl,
  parseRetrySchedule,
  retryDelayMs,
  shouldDisable,
  signatureHeader,
  signedContent,
  WebhookCreateSchema,
} from "../../../pipeline/domain/webhook.ts";

describe("signed content and signature header", () => {
  it.each([
    ["msg_1", 1_700_000_000, "{}", "msg_1.1700000000.{}"],
    ["evt_daily_2026-11-20", 1, '{"a":"b.c"}', 'evt_daily_2026-11-20.1.{"a":"b.c"}'],
    ["x", 0, "", "x.0."],
  ])("signedContent(%s, %i, %s)", (id, ts, body, expected) => {
    expect(signedContent(id, ts, body)).toBe(expected);
  });

  it.each([
    [["abc="], "v1,abc="],
    [["new=", "old="], "v1,new= v1,old="],
  ])("signatureHeader(%j)", (signatures, expected) => {
    expect(signatureHeader(signatures)).toBe(expected);
  });
});

describe("retry schedule", () => {
  it("is about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
  });

  it.each([
    [1, 0.5, 5_000],
    [1, 0, 4_000],
    [1, 0.999999, 6_000],
    [2, 0.5, 300_000],
    [7, 0.5, 36_000_000],
    [7, 0, 28_800_000],
    [8, 0.5, null],
  ])("after failure %i with random %f waits %s ms", (attempt, random, expected) => {
    expect(retryDelayMs(attempt, DEFAULT_RETRY_SCHEDULE_MS, random)).toBe(expected);
  });

  it.each([
    ["100,200,300", [100, 200, 300]],
    [" 5 , 6", [5, 6]],
    ["", "Expected"],
    ["1,,2", "Expected"],
    ["0", "Expected"],
    ["-5", "Expected"],
    ["1.5", "Expected"],
  ])("parseRetrySchedule(%j)", (raw, expected) => {
    const parsed = parseRetrySchedule(raw);
    if (typeof expected === "string") expect(parsed).toMatch(/^Expected WEBHOOK_RETRY_SCHEDULE_MS/);
    else expect(parsed).toEqual(expected);
  });
});

describe("the 5-day disable rule", () => {
  const now = 10 * 86_400_000;
  it.each([
    [null, false],
    [now, false],
    [now - DISABLE_AFTER_MS + 1, false],
    [now - DISABLE_AFTER_MS, true],
    [now - DISABLE_AFTER_MS - 1, true],
  ])("failing since %s disables: %s", (since, expected) => {
    expect(shouldDisable(since, now, DISABLE_AFTER_MS)).toBe(expected);
  });
});

describe("days to announce", () => {
  it.each([
    [["2026-11-20", "2026-11-19"], [], ["2026-11-19", "2026-11-20"]],
    [["2026-11-20", "2026-11-19"], ["2026-11-19", "2026-11-20"], []],
    [["2026-11-22", "2026-11-21", "2026-11-20"], ["2026-11-20"], ["2026-11-21", "2026-11-22"]],
    // A day older than the newest announced one, published late, is still news.
    [["2026-11-19", "2026-11-18", "2026-11-20"], ["2026-11-20", "2026-11-18"], ["2026-11-19"]],
  ])("published %j, announced %j: %j", (published, announced, expected) => {
    expect(daysToAnnounce(published, new Set(announced))).toEqual(expected);
  });

  it.each([
    [["2026-11-20", "2026-11-19"], null, ["2026-11-19", "2026-11-20"]],
    [["2026-11-22", "2026-11-21", "2026-11-20"], "2026-11-21", ["2026-11-20", "2026-11-21"]],
    [["2026-11-22"], "2026-11-21", []],
  ])("a first start with %j published and watermark %s counts %j as announced", (published, watermark, expected) => {
    expect(daysAnnouncedBefore(published, watermark)).toEqual(expected);
  });
});

describe("endpoint urls and the create body", () => {
  it.each([
    ["https://hooks.example.org/in", true],
    ["http://203.0.113.7:8080/x", true],
    ["ftp://example.org/", false],
    ["file:///etc/passwd", false],
    ["https://user:pw@example.org/", false],
    ["not a url", false],
    ["/relative", false],
  ])("isWebhookUrl(%s) = %s", (url, expected) => {
    expect(isWebhookUrl(url)).toBe(expected);
  });

  it("takes subscribable events only, with the description defaulting to empty", () => {
    expect(
      WebhookCreateSchema.parse({ url: "https://example.org/hook", events: ["daily.published"] }),
    ).toEqual({ url: "https://example.org/hook", events: ["daily.published"], description: "" });
    for (const events of [["webhook.test"], ["daily.published", "nope"], []]) {
      expect(WebhookCreateSchema.safeParse({ url: "https://example.org/hook", events }).success).toBe(false);
    }
  });
});

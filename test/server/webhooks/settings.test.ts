import { describe, expect, it } from "vitest";
import {
  DEFAULT_WEBHOOK_SETTINGS,
  webhookSettingsFromEnv,
} from "../../../server/webhooks/webhook-settings.ts";

describe("webhook settings from the environment", () => {
  it("defaults to a 10 s timeout, the published schedule and no loopback", () => {
    expect(webhookSettingsFromEnv({})).toEqual(DEFAULT_WEBHOOK_SETTINGS);
    expect(DEFAULT_WEBHOOK_SETTINGS).toMatchObject({ timeoutMs: 10_000, allowLoopback: false });
  });

  it.each([
    [{ WEBHOOK_ALLOW_LOOPBACK: "1" }, { allowLoopback: true }],
    [{ WEBHOOK_RETRY_SCHEDULE_MS: "10,20" }, { retryScheduleMs: [10, 20] }],
    [
      { WEBHOOK_DISABLE_AFTER_MS: "1000", WEBHOOK_LEASE_MS: "2000", WEBHOOK_TIMEOUT_MS: "1500" },
      { disableAfterMs: 1000, leaseMs: 2000, timeoutMs: 1500 },
    ],
  ])("reads %j", (env, expected) => {
    expect(webhookSettingsFromEnv(env)).toMatchObject(expected);
  });

  it.each([
    [{ WEBHOOK_ALLOW_LOOPBACK: "yes" }, /WEBHOOK_ALLOW_LOOPBACK to be 0 or 1/],
    [{ WEBHOOK_RETRY_SCHEDULE_MS: "5s" }, /WEBHOOK_RETRY_SCHEDULE_MS to be comma-separated/],
    [{ WEBHOOK_CONCURRENCY: "0" }, /WEBHOOK_CONCURRENCY to be a whole number above 0/],
    [{ WEBHOOK_POLL_MS: "3000000000" }, /WEBHOOK_POLL_MS to be at most 2147483647 \(Node's longest timer\)/],
    [
      { WEBHOOK_LEASE_MS: "2000" },
      /WEBHOOK_LEASE_MS \(2000\) to be longer than WEBHOOK_TIMEOUT_MS \(10000\)/,
    ],
  ])("refuses %j", (env, message) => {
    expect(() => webhookSettingsFromEnv(env)).toThrow(message);
  });
});

import { describe, expect, it } from "vitest";
import {
  isTimeZoneName,
  VerifyOptionsSchema,
  VerifyRequestSchema,
} from "../../../pipeline/domain/verify-request.ts";

const base = { subject: "Hello", body: "Body", recipient: "anna@northwind-labs.com" };

describe("verify request schema", () => {
  it("fills every default", () => {
    expect(VerifyRequestSchema.parse(base)).toEqual({
      ...base,
      campaign: "",
      options: { weekend_block: false, timezone: "UTC", redlist: [], llm_check: true },
    });
    expect(VerifyRequestSchema.parse({ ...base, options: { weekend_block: true } }).options).toEqual({
      weekend_block: true,
      timezone: "UTC",
      redlist: [],
      llm_check: true,
    });
  });

  it("does not share default objects between requests", () => {
    const first = VerifyRequestSchema.parse(base);
    first.options.redlist.push("mutated");
    expect(VerifyRequestSchema.parse(base).options.redlist).toEqual([]);
  });

  it.each([
    ["empty subject", { ...base, subject: "" }, ["subject"]],
    ["subject of 501", { ...base, subject: "x".repeat(501) }, ["subject"]],
    ["body of 10001", { ...base, body: "x".repeat(10_001) }, ["body"]],
    ["recipient of 2", { ...base, recipient: "a@" }, ["recipient"]],
    ["recipient of 321", { ...base, recipient: "a".repeat(321) }, ["recipient"]],
    ["campaign of 121", { ...base, campaign: "c".repeat(121) }, ["campaign"]],
    ["null campaign", { ...base, campaign: null }, ["campaign"]],
    ["201 redlist terms", { ...base, options: { redlist: Array(201).fill("x") } }, ["options", "redlist"]],
    ["string boolean", { ...base, options: { weekend_block: "yes" } }, ["options", "weekend_block"]],
    ["number subject", { ...base, subject: 123 }, ["subject"]],
  ])("rejects %s", (_name, input, path) => {
    const result = VerifyRequestSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(path);
  });

  it.each([
    ["subject of 500", { ...base, subject: "x".repeat(500) }],
    ["body of 10000", { ...base, body: "x".repeat(10_000) }],
    ["200 redlist terms", { ...base, options: { redlist: Array(200).fill("x") } }],
  ])("accepts %s", (_name, input) => {
    expect(VerifyRequestSchema.safeParse(input).success).toBe(true);
  });

  it.each([
    "UTC",
    "Etc/UTC",
    "Etc/GMT+5",
    "Europe/Berlin",
    "America/New_York",
    "Asia/Kolkata",
    "Asia/Calcutta",
  ])("accepts the time zone %s", (timezone) => {
    expect(VerifyOptionsSchema.parse({ timezone }).timezone).toBe(timezone);
    expect(isTimeZoneName(timezone)).toBe(true);
  });

  it.each([
    "Mars/Base",
    "",
    "+01:00",
    "Europe/Berlin ",
    "Nowhere",
  ])("rejects the time zone %j", (timezone) => {
    const result = VerifyOptionsSchema.safeParse({ timezone });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(
      `Unknown time zone '${timezone}'; expected an IANA name such as 'Europe/Berlin' or 'UTC'`,
    );
  });
});

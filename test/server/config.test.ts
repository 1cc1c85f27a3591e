import { describe, expect, it } from "vitest";
import { configFromEnv } from "../../server/config.ts";

describe("IPV6_PREFIX", () => {
  it.each([
    [undefined, 64],
    ["", 64],
    ["  ", 64],
    ["64", 64],
    ["48", 48],
    [" 56 ", 56],
    ["1", 1],
    ["128", 128],
  ])("reads %j as a /%i", (value, prefix) => {
    expect(configFromEnv(value === undefined ? {} : { IPV6_PREFIX: value }).ipv6Prefix).toBe(prefix);
  });

  it.each([
    "0",
    "129",
    "256",
    "-1",
    "64.5",
    "1e2",
    "/64",
    "sixty-four",
    "0x40",
  ])("refuses %j at start-up, naming the variable and what it takes", (value) => {
    expect(() => configFromEnv({ IPV6_PREFIX: value })).toThrow(
      `Expected IPV6_PREFIX to be a whole number from 1 to 128 (the IPv6 prefix length counted as one client), got \`${value}\``,
    );
  });
});

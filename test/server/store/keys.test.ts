import { describe, expect, it } from "vitest";
import { assertKey, hashKeyPart, queueKey, sequenceKey } from "../../../server/store/keys.ts";

describe("store keys", () => {
  it.each([
    "a",
    "usage:ab12:2026-11-22",
    "ip:0f:1700000000000",
    "a.b_c-d",
    "x:y.z",
    "0",
  ])("accepts %j", (key) => {
    expect(assertKey(key)).toBe(key);
  });

  it.each([
    ["", /Expected a store key/],
    ["Usage", /Expected a store key/],
    ["a/b", /Expected a store key/],
    ["a?b", /Expected a store key/],
    ["user@example.com", /hashKeyPart/],
    ["::1", /Expected a store key/],
    ["a:.hidden", /Expected a store key/],
    ["_queue:x", /reserved/],
  ])("refuses %j", (key, message) => {
    expect(() => assertKey(key)).toThrow(message);
  });

  it("hashes free text into a 32-hex-digit segment, keyed by a secret when given", () => {
    const plain = hashKeyPart("203.0.113.7");
    expect(plain).toMatch(/^[0-9a-f]{32}$/);
    expect(hashKeyPart("203.0.113.7")).toBe(plain);
    expect(hashKeyPart("203.0.113.8")).not.toBe(plain);
    expect(hashKeyPart("203.0.113.7", "secret")).not.toBe(plain);
    expect(hashKeyPart("203.0.113.7", "secret")).toMatch(/^[0-9a-f]{32}$/);
    expect(assertKey(`ip:${hashKeyPart("::1")}`)).toContain("ip:");
  });

  it("keeps the store's own keys under reserved names", () => {
    expect(sequenceKey("submissions")).toBe("_seq:submissions");
    expect(queueKey("scoring", "pending")).toBe("_queue:scoring:pending");
    expect(() => sequenceKey("Bad Name")).toThrow(/Expected a store key/);
  });
});

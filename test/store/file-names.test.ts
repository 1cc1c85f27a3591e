import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fileNameToKey, keyToFileName } from "../../server/store/file-names.ts";

describe("record file names", () => {
  it.each([
    ["usage:ab12:2026-11-22", "usage~ab12~2026-11-22.json"],
    ["_seq:submissions", "_seq~submissions.json"],
    ["a.json", "a.json.json"],
    [".hidden", "%2Ehidden.json"],
    ["Upper", "%55pper.json"],
    ["tilde~x", "tilde%7Ex.json"],
    ["é", "%C3%A9.json"],
    ["a b/c", "a%20b%2Fc.json"],
  ])("maps %j to %j and back", (key, name) => {
    expect(keyToFileName(key)).toBe(name);
    expect(fileNameToKey(name)).toBe(key);
  });

  it.each(["", "a::b", ":a", "a:", "..", "a:..", "a:.:b"])("refuses the key %j", (key) => {
    expect(() => keyToFileName(key)).toThrow(/segments/);
  });

  it("refuses keys whose name would not fit a file name", () => {
    expect(() => keyToFileName("é".repeat(50))).toThrow(/255 bytes/);
  });

  it.each([
    ".lock",
    ".tmp-1-ab-2",
    "a.txt",
    ".json",
    "a%2e.json",
    "A.json",
    "a~~b.json",
    "a%zz.json",
  ])("does not read %j as a record", (name) => {
    expect(fileNameToKey(name)).toBeNull();
  });

  // At most 20 code points of up to 12 encoded bytes each, so that every name fits in 255 bytes.
  const key = fc
    .array(fc.string({ minLength: 1, maxLength: 5, unit: "binary" }), { minLength: 1, maxLength: 4 })
    .map((segments) => segments.map((segment) => segment.replaceAll(":", "")).filter(Boolean))
    .filter((segments) => segments.length > 0 && segments.every((s) => s !== "." && s !== ".."))
    .map((segments) => segments.join(":"));

  it("maps any key to one flat, non-hidden name that maps back", () => {
    fc.assert(
      fc.property(key, (k) => {
        const name = keyToFileName(k);
        expect(name).not.toMatch(/[/\\\0]/);
        expect(name.startsWith(".")).toBe(false);
        expect(fileNameToKey(name)).toBe(k);
      }),
      { numRuns: 2_000 },
    );
  });

  it("gives distinct keys names that differ even on a case-insensitive file system", () => {
    fc.assert(
      fc.property(key, key, (a, b) => {
        fc.pre(a !== b);
        expect(keyToFileName(a).toLowerCase()).not.toBe(keyToFileName(b).toLowerCase());
      }),
      { numRuns: 2_000 },
    );
    expect(keyToFileName("a").toLowerCase()).not.toBe(keyToFileName("A").toLowerCase());
  });
});

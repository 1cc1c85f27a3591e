import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, type PapersCursor } from "../../../server/mcp/papers-cursor.ts";

describe("labs_papers cursors", () => {
  it.each<PapersCursor>([
    { offset: 10, to: "2026-11-20", days: 7, axis: null, min_score: 0, min_reg_fit: 0 },
    { offset: 25, to: "2025-01-01", days: 3650, axis: "A9", min_score: 3, min_reg_fit: 2 },
  ])("round-trips %j", (cursor) => {
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(cursor);
  });

  it.each([
    ["not base64 JSON", "%%%"],
    ["JSON of another shape", Buffer.from('{"o":1}').toString("base64url")],
    [
      "a negative offset",
      Buffer.from('{"v":1,"o":-1,"t":"2026-11-20","q":[7,null,0,0]}').toString("base64url"),
    ],
    [
      "an unknown axis",
      Buffer.from('{"v":1,"o":1,"t":"2026-11-20","q":[7,"A10",0,0]}').toString("base64url"),
    ],
  ])("refuses %s", (_name, text) => {
    expect(decodeCursor(text)).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { encodeChange, type ParsedJournal, parseJournal } from "../../server/store/journal-format.ts";

const A1 = '{"k":"a","e":null,"v":1}\n';
const B2 = '{"k":"usage:b","e":1764000000000,"v":{"n":[2,"é"]}}\n';
const GONE = '{"k":"a"}\n';

describe("journal lines", () => {
  it("encodes states and removals as one JSON line each", () => {
    expect(encodeChange("a", { json: "1", expiresAt: null })).toBe(A1);
    expect(encodeChange("usage:b", { json: '{"n":[2,"é"]}', expiresAt: 1764000000000 })).toBe(B2);
    expect(encodeChange("a", undefined)).toBe(GONE);
    expect(encodeChange("s", { json: JSON.stringify("two\nlines\u2028"), expiresAt: null })).not.toMatch(
      /\n./,
    );
  });

  const a1 = { key: "a", entry: { json: "1", expiresAt: null } };
  const b2 = { key: "usage:b", entry: { json: '{"n":[2,"é"]}', expiresAt: 1764000000000 } };
  const gone = { key: "a", entry: null };
  const cases: Array<[string, string, ParsedJournal]> = [
    ["an empty journal (a kill right after a rotation)", "", { changes: [], tornTail: false, skipped: 0 }],
    ["whole lines, in order", A1 + B2 + GONE, { changes: [a1, b2, gone], tornTail: false, skipped: 0 }],
    ["a last line cut by a kill", A1 + B2.slice(0, 20), { changes: [a1], tornTail: true, skipped: 0 }],
    [
      "a last line cut just before its newline",
      A1 + B2.slice(0, -1),
      { changes: [a1], tornTail: true, skipped: 0 },
    ],
    [
      "a cut line, then a batch that starts on a new line (the write failed, the process went on)",
      `${A1}${B2.slice(0, 30)}\n${GONE}`,
      { changes: [a1, gone], tornTail: false, skipped: 1 },
    ],
    ["zeros left by a power loss", `${A1}\0\0\0\0\n`, { changes: [a1], tornTail: false, skipped: 1 }],
    [
      "lines that are JSON but not changes",
      '[1]\n"x"\n{"k":""}\n{"k":"a","e":1.5,"v":1}\n{"k":"a","e":1}\n{"v":1}\n',
      { changes: [], tornTail: false, skipped: 6 },
    ],
    ["blank lines", `\n\n${A1}\n`, { changes: [a1], tornTail: false, skipped: 0 }],
  ];
  it.each(cases)("parses %s", (_, text, parsed) => {
    expect(parseJournal(text)).toEqual(parsed);
  });

  it("cannot mistake any cut line for a whole one, even with a newline after the cut", () => {
    for (const line of [A1, B2, GONE]) {
      // Up to the closing "}": a JSON object is never valid without it.
      for (let cut = 1; cut < line.length - 1; cut++) {
        expect(parseJournal(line.slice(0, cut)).changes).toEqual([]);
        expect(parseJournal(`${line.slice(0, cut)}\n`).changes).toEqual([]);
      }
    }
  });
});

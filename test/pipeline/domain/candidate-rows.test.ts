import { describe, expect, it } from "vitest";
import { collectCandidates, rowToCandidate } from "../../../pipeline/domain/candidate-rows.ts";

const where = "listing.jsonl:1";

describe("listing rows", () => {
  it("normalises ids, whitespace, author and category strings", () => {
    const row = {
      id: "arXiv:2401.12345v2",
      title: "  A  title\nacross lines ",
      abstract: "An abstract.",
      authors: "Ada Lovelace, Alan Turing",
      categories: "cs.AI cs.LG",
      comment: "  code at github.com/x/y ",
    };
    expect(rowToCandidate({ value: row, where })).toEqual({
      id: "2401.12345",
      title: "A title across lines",
      summary: "An abstract.",
      authors: ["Ada Lovelace", "Alan Turing"],
      categories: ["cs.AI", "cs.LG"],
      comment: "code at github.com/x/y",
    });
  });

  it.each([
    [{ id: "2401.1", title: "t" }, "malformed arXiv id"],
    [{ title: "no id" }, "malformed arXiv id"],
    [{ id: "2401.12345", title: "   " }, "missing title"],
    [{ id: "2401.12345" }, "missing title"],
    [["not", "an", "object"], "row is not an object"],
    [null, "row is not an object"],
  ])("skips %j: %s", (value, reason) => {
    expect(rowToCandidate({ value, where })).toMatchObject({ where, reason });
  });

  it("counts repeated ids once and keeps the first row", () => {
    const batch = collectCandidates(
      [
        { value: { id: "2401.00001", title: "first" }, where: "a:1" },
        { value: { id: "2401.00001v2", title: "second" }, where: "a:2" },
        { value: { id: "bad", title: "x" }, where: "a:3" },
        { value: { id: "2401.00002", title: "other" }, where: "a:4" },
      ],
      { source: "test", sample: false },
    );
    expect(batch.candidates.map((c) => [c.id, c.title])).toEqual([
      ["2401.00001", "first"],
      ["2401.00002", "other"],
    ]);
    expect(batch.duplicates).toBe(1);
    expect(batch.skipped).toEqual([{ where: "a:3", id: "bad", reason: "malformed arXiv id" }]);
  });
});

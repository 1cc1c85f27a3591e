import { describe, expect, it } from "vitest";
import { parseScreenedDay, summaryOpening } from "../../../pipeline/domain/screened.ts";
import { type ReasonKind, readerReason } from "../../../pipeline/domain/screened-reason.ts";

// Every wording selection.ts writes, with what a reader is told.
const REASONS: [record: string, offMission: boolean, kind: ReasonKind, text: string][] = [
  ["kept: rank score 0.97, total 11 >= 6, rank 1", false, "picked", "picked, rank 1 of the day"],
  ["kept: total 19 >= 13, rank 4", false, "picked", "picked, rank 4 of the day"],
  [
    "kept: rank score 0.90, total 3 spared the floor as the model's first, rank 2",
    false,
    "picked",
    "picked, rank 2 of the day",
  ],
  ["below threshold: total 4 < 6", false, "below_total", "below the rubric's floor: rubric total 4, needs 6"],
  [
    "below threshold: total 2 < 6",
    true,
    "below_total",
    "off topic for this digest (rubric total 2, needs 6)",
  ],
  ["REG FIT 1 < 2 (total 9 >= 6)", false, "below_reg_fit", "below the rubric's floor: REG FIT 1, needs 2"],
  ["must-read likelihood 0.12 < 0.2", false, "below_must_read", "unlikely to be a must-read: 12%, needs 20%"],
  [
    "on-topic probability 0.31 < 0.5",
    false,
    "off_topic",
    "off topic for this digest: on-topic likelihood 31%, needs 50%",
  ],
  [
    "cleared threshold (total 12, rank score 0.88) but over the daily maximum of 6",
    false,
    "over_daily_max",
    "the day's six were already chosen",
  ],
  [
    "cleared threshold (total 12) but over the daily maximum of 12",
    false,
    "over_daily_max",
    "the day's 12 were already chosen",
  ],
  ["a wording from an older selection", false, "other", "a wording from an older selection"],
];

describe("readerReason", () => {
  it.each(REASONS)("%s (off mission: %s) is %s", (record, offMission, kind, text) => {
    expect(readerReason(record, offMission)).toEqual({ kind, text });
  });
});

describe("summaryOpening", () => {
  it("keeps a short abstract whole, whitespace collapsed", () => {
    expect(summaryOpening("  We  study\nagents. ", 40)).toBe("We study agents.");
  });

  it("cuts a long one at a word and marks the cut", () => {
    const cut = summaryOpening("alpha beta gamma, delta epsilon zeta eta theta", 20);
    expect(cut).toBe("alpha beta gamma…");
    expect(cut.length).toBeLessThanOrEqual(21);
  });

  it("cuts a text without spaces at the limit", () => {
    expect(summaryOpening("x".repeat(50), 20)).toBe(`${"x".repeat(20)}…`);
  });
});

describe("parseScreenedDay", () => {
  it("names what is wrong with bytes that are not a screened file", () => {
    expect(parseScreenedDay(new TextEncoder().encode("{"))).toEqual({ problem: "not valid JSON" });
    const problem = parseScreenedDay(new TextEncoder().encode('{"date":"2026-06-12"}'));
    expect(problem).toMatchObject({
      problem: expect.stringMatching(/^not a screened file \(generated_at: /),
    });
  });
});

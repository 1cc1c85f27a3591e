import { describe, expect, it } from "vitest";
import { arxivIdFlaw, baseArxivId, isArxivId, normalizeArxivRef } from "../../../pipeline/domain/arxiv-id.ts";

describe("arXiv ids", () => {
  it.each([
    ["2401.12345", true],
    ["2401.12345v2", true],
    ["0704.0001", true],
    ["cs/0112017", true],
    ["math.GT/0309136v1", true],
    ["hep-th/9901001", true],
    ["2401.123", false],
    ["2401.123456", false],
    ["2401-12345", false],
    ["cs/011201", false],
    ["CS/0112017", false],
    ["2401.12345v", false],
    ["../etc/passwd", false],
    ["", false],
  ])("isArxivId(%j) is %s", (id, expected) => {
    expect(isArxivId(id)).toBe(expected);
  });

  it.each([
    ["2401.12345v3", "2401.12345"],
    ["cs/0112017v1", "cs/0112017"],
    ["2401.12345", "2401.12345"],
  ])("baseArxivId(%j) is %j", (id, expected) => {
    expect(baseArxivId(id)).toBe(expected);
  });

  it.each([
    ["arXiv:2401.12345v2", "2401.12345"],
    ["ARXIV:2401.12345", "2401.12345"],
    ["https://arxiv.org/abs/2401.12345v2", "2401.12345"],
    ["https://arxiv.org/pdf/2401.12345v2.pdf", "2401.12345"],
    ["http://export.arxiv.org/abs/cs/0112017", "cs/0112017"],
    ["https://arxiv.org/abs/cs%2F0112017", "cs/0112017"],
    ["  2401.12345  ", "2401.12345"],
    ["https://example.com/abs/2401.12345", undefined],
    ["not an id", undefined],
    // Regression: a malformed escape threw URIError, a 500 on the watchlist and an MCP failure.
    ["https://arxiv.org/abs/%E0%A4%A", undefined],
    ["https://arxiv.org/abs/2401.12345%", undefined],
  ])("normalizeArxivRef(%j) is %j", (input, expected) => {
    expect(normalizeArxivRef(input)).toBe(expected);
  });

  it.each([
    ["2401.12345", undefined],
    ["2401.12345v3", undefined],
    ["0704.0001", undefined],
    ["1412.9999", undefined],
    ["cs/0112017", undefined],
    ["math.GT/0309136v2", undefined],
    ["hep-th/9108001", undefined],
    ["2413.12345", "month 13 does not exist"],
    ["2400.12345", "month 00 does not exist"],
    ["0612.0001", "new-style ids start in April 2007 (0704)"],
    ["1501.0001", "ids of 1501 have 5 digits after the dot"],
    ["1412.12345", "ids of 1412 have 4 digits after the dot"],
    ["zzz/0101001", '"zzz" is not an arXiv archive'],
    ["cs/0113001", "month 13 does not exist"],
    ["cs/1201001", "old-style ids run from 1991 to March 2007"],
    ["cs/0704001", "old-style ids run from 1991 to March 2007"],
    ["not an id", "not an arXiv id"],
  ])("arxivIdFlaw(%j) is %j", (id, expected) => {
    expect(arxivIdFlaw(id)).toBe(expected);
  });
});

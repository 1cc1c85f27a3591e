import { describe, expect, it } from "vitest";
import { readLabels } from "../../../pipeline/domain/labels.ts";

const label = { label: 2, group: "substrate", reg_fit: 3, why: "agent runtime" };

describe("labels files", () => {
  it("normalises ids the way listings do", () => {
    const read = readLabels({
      listing: "listing-2026-03-11.jsonl",
      labeled_by: "expert review",
      labels: {
        "2401.12345v2": label,
        "arXiv:cs/0112017": { ...label, label: 0, group: "none", reg_fit: null },
      },
    });
    expect(read).toEqual({
      labels: {
        listing: "listing-2026-03-11.jsonl",
        labeled_by: "expert review",
        labels: {
          "2401.12345": label,
          "cs/0112017": { label: 0, group: "none", reg_fit: null, why: "agent runtime" },
        },
      },
    });
  });

  it.each([
    ["a list", [], "the document: Invalid input: expected object, received array"],
    ["no listing", { labels: {} }, "listing: Invalid input: expected string"],
    ["a malformed id", { listing: "l", labels: { "2401.1": label } }, "labels.2401.1: not an arXiv id"],
    [
      "one paper twice",
      { listing: "l", labels: { "2401.12345": label, "2401.12345v1": label } },
      "labels.2401.12345v1: labels arXiv 2401.12345 again (already labelled as `2401.12345`)",
    ],
    [
      "label 3",
      { listing: "l", labels: { "2401.12345": { ...label, label: 3 } } },
      "labels.2401.12345.label",
    ],
    [
      "REG FIT 4",
      { listing: "l", labels: { "2401.12345": { ...label, reg_fit: 4 } } },
      "labels.2401.12345.reg_fit",
    ],
    [
      "an unknown group",
      { listing: "l", labels: { "2401.12345": { ...label, group: "vision" } } },
      "labels.2401.12345.group",
    ],
    [
      "no reason",
      { listing: "l", labels: { "2401.12345": { ...label, why: undefined } } },
      "labels.2401.12345.why",
    ],
  ])("refuses %s, saying where", (_case, json, problem) => {
    const read = readLabels(json);
    expect("problem" in read && read.problem).toContain(problem);
  });
});

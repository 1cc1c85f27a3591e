import { describe, expect, it } from "vitest";
import {
  type AttemptOutcome,
  admit,
  type Circuit,
  CLOSED,
  outcomeOfStatus,
  record,
} from "../../../pipeline/domain/circuit.ts";

const POLICY = { failureThreshold: 3, coolDownMs: 1_000 };
const NOW = 10_000;

describe("the circuit breaker's transitions", () => {
  it.each<[string, Circuit, AttemptOutcome, Circuit]>([
    ["a failure counts", CLOSED, "failed", { state: "closed", failures: 1 }],
    [
      "the threshold opens it",
      { state: "closed", failures: 2 },
      "failed",
      { state: "open", until: NOW + 1_000 },
    ],
    ["an answer resets the count", { state: "closed", failures: 2 }, "answered", CLOSED],
    [
      "a 429 changes nothing",
      { state: "closed", failures: 2 },
      "throttled",
      { state: "closed", failures: 2 },
    ],
    [
      "a failed probe opens it again",
      { state: "half_open" },
      "failed",
      { state: "open", until: NOW + 1_000 },
    ],
    ["an answered probe closes it", { state: "half_open" }, "answered", CLOSED],
    [
      "a late failure keeps it open",
      { state: "open", until: NOW - 5 },
      "failed",
      { state: "open", until: NOW + 1_000 },
    ],
  ])("%s", (_, before, outcome, after) => {
    expect(record(before, outcome, NOW, POLICY)).toEqual(after);
  });

  it.each<[string, Circuit, boolean, Circuit]>([
    [
      "closed lets every attempt through",
      { state: "closed", failures: 2 },
      true,
      { state: "closed", failures: 2 },
    ],
    [
      "open refuses during the cool-down",
      { state: "open", until: NOW + 1 },
      false,
      { state: "open", until: NOW + 1 },
    ],
    ["open lets one probe through after it", { state: "open", until: NOW }, true, { state: "half_open" }],
    ["half open refuses while the probe is out", { state: "half_open" }, false, { state: "half_open" }],
  ])("%s", (_, before, admitted, after) => {
    expect(admit(before, NOW)).toEqual({ admitted, circuit: after });
  });

  it.each([
    [200, "answered"],
    [404, "answered"],
    [429, "throttled"],
    [408, "failed"],
    [500, "failed"],
    [503, "failed"],
  ])("status %i is %s", (status, outcome) => {
    expect(outcomeOfStatus(status)).toBe(outcome);
  });
});

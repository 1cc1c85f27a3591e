import { z } from "zod";

// A circuit breaker per upstream, as pure transitions: the HTTP client holds one per upstream and
// asks it before every attempt, so an upstream that is down costs a few failed attempts, not every
// retry of every call.

export const CircuitStateSchema = z
  .enum(["closed", "open", "half_open"])
  .describe(
    "closed: calls go through; open: calls fail at once after consecutive failures; half_open: one probe is out",
  );
export type CircuitStateName = z.infer<typeof CircuitStateSchema>;

export interface CircuitPolicy {
  /** Consecutive failed attempts (no answer, a timeout, a 5xx) that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before it lets one probe through. */
  coolDownMs: number;
}

// Five: more than the attempts of one call with the default three retries, so a single flaky call is retried in
// full; a second call that fails too opens it.
export const DEFAULT_CIRCUIT_POLICY: CircuitPolicy = { failureThreshold: 5, coolDownMs: 30_000 };

export type Circuit =
  | { state: "closed"; failures: number }
  | { state: "open"; until: number }
  | { state: "half_open" };

export const CLOSED: Circuit = { state: "closed", failures: 0 };

/**
 * Whether an attempt may start at `now`, and the circuit after asking: an open circuit whose
 * cool-down is over lets this one attempt through as its probe (half open) and refuses the rest.
 */
export function admit(circuit: Circuit, now: number): { admitted: boolean; circuit: Circuit } {
  if (circuit.state === "closed") return { admitted: true, circuit };
  if (circuit.state === "open" && now >= circuit.until)
    return { admitted: true, circuit: { state: "half_open" } };
  return { admitted: false, circuit };
}

/** How an attempt ended, for the breaker: the upstream answered, it did not, or it asked to slow down. */
export type AttemptOutcome = "answered" | "failed" | "throttled";

/**
 * The circuit after an attempt: an answer closes it; a failure counts towards the threshold, and a
 * failed probe (or any failure once it is no longer closed) opens it for another cool-down; being
 * throttled (429) says the upstream is up, so it changes nothing.
 * @example record({ state: "closed", failures: 2 }, "failed", now, { failureThreshold: 3, coolDownMs: 1000 }) // open until now + 1000
 */
export function record(
  circuit: Circuit,
  outcome: AttemptOutcome,
  now: number,
  policy: CircuitPolicy,
): Circuit {
  if (outcome === "throttled") return circuit;
  if (outcome === "answered") return CLOSED;
  const failures = circuit.state === "closed" ? circuit.failures + 1 : policy.failureThreshold;
  return failures >= policy.failureThreshold
    ? { state: "open", until: now + policy.coolDownMs }
    : { state: "closed", failures };
}

/** What an attempt's answer means to the breaker, by its HTTP status. */
export function outcomeOfStatus(status: number): AttemptOutcome {
  if (status === 429) return "throttled";
  return status >= 500 || status === 408 ? "failed" : "answered";
}

// The answer of POST /v1/verify as JSON, without encoding again what every request shares: most check
// results and the switched-off review are frozen objects (check-types.ts, verify-message.ts), whose JSON
// is written once and kept.

import type { VerifyResult } from "../../pipeline/domain/verify-request.ts";

// The keys of a result in the order verifyMessage writes them; any other result goes to JSON.stringify.
const KEYS = ["verdict", "risk", "summary", "checks", "semantic", "metadata"] as const;

// Keyed weakly: a frozen result that nothing uses any more takes its JSON with it.
const written = new WeakMap<object, string>();

/** Plain data that can never change: primitives, and arrays and plain objects frozen all the way down. */
function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) {
    return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
  }
  if (!Object.isFrozen(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return false;
  // Own getters could answer differently each time.
  return Object.values(Object.getOwnPropertyDescriptors(value)).every(
    (descriptor) => "value" in descriptor && isDeepFrozen(descriptor.value),
  );
}

/** JSON.stringify(value) as an array element writes it: "null" for what has no JSON. */
function element(value: unknown): string {
  if (typeof value === "object" && value !== null && Object.isFrozen(value)) {
    const known = written.get(value);
    if (known !== undefined) return known;
    const json = JSON.stringify(value);
    if (isDeepFrozen(value)) written.set(value, json);
    return json;
  }
  return JSON.stringify(value) ?? "null";
}

/** True when every key is there, in order, with a value JSON writes (not undefined, a function...). */
function hasUsualShape(result: VerifyResult): boolean {
  const keys = Object.keys(result);
  if (keys.length !== KEYS.length || !KEYS.every((key, index) => keys[index] === key)) return false;
  return (
    typeof result.verdict === "string" &&
    typeof result.risk === "number" &&
    typeof result.summary === "string" &&
    Array.isArray(result.checks) &&
    typeof result.semantic === "object" &&
    result.semantic !== null &&
    typeof result.metadata === "object" &&
    result.metadata !== null &&
    !("toJSON" in result) &&
    !("toJSON" in result.checks)
  );
}

/** Exactly `JSON.stringify(result)`, byte for byte, with the shared parts' JSON written once. */
export function verifyResultJson(result: VerifyResult): string {
  if (!hasUsualShape(result)) return JSON.stringify(result);
  let checks = "";
  for (let k = 0; k < result.checks.length; k++) {
    checks += k === 0 ? element(result.checks[k]) : `,${element(result.checks[k])}`;
  }
  return (
    `{"verdict":${JSON.stringify(result.verdict)},"risk":${JSON.stringify(result.risk)},` +
    `"summary":${JSON.stringify(result.summary)},"checks":[${checks}],` +
    `"semantic":${element(result.semantic)},"metadata":${element(result.metadata)}}`
  );
}

// The answer of POST /v1/verify as JSON, without encoding again what every request shares: most check
// results and the skipped reviews are made by shareWithJson, which wrote their JSON once.

import type { VerifyResult } from "../../pipeline/domain/verify-request.ts";
import { sharedJson } from "./shared-json.ts";

// The keys of a result in the order verifyMessage writes them; any other result goes to JSON.stringify.
const KEYS = ["verdict", "risk", "summary", "checks", "semantic", "metadata"] as const;

/** JSON.stringify(value) as an array element writes it: "null" for what has no JSON. */
function element(value: unknown): string {
  if (typeof value === "object" && value !== null) return sharedJson(value) ?? JSON.stringify(value);
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

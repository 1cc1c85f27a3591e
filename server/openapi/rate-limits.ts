import { TIER_NAMES, TIERS } from "../../pipeline/domain/tiers.ts";

// The rate-limit sentences of the operations, written from the same numbers the server enforces.

const count = (n: number): string => n.toLocaleString("en-US");

function windowWords(seconds: number): string {
  if (seconds === 3600) return "hour";
  if (seconds % 86_400 === 0) return seconds === 86_400 ? "24 hours" : `${seconds / 86_400} days`;
  return `${seconds} seconds`;
}

/** A keyed operation that spends one call of the key's quota. */
export function quotaText(): string {
  const tiers = TIER_NAMES.map((name) => {
    const { calls_per_window: calls, window_days: days } = TIERS[name];
    return calls === null ? `${name}: unlimited` : `${name}: ${count(calls)} calls per ${days} days`;
  });
  return (
    `Spends one call of the key's quota (${tiers.join("; ")}), counted from the key's creation. ` +
    "Answers carry RateLimit-Policy and RateLimit (not on an unlimited tier); a spent quota is a 429 " +
    "with Retry-After. Answers refused before the quota is consulted (401, 422) spend nothing."
  );
}

/** An operation limited per client address. */
export function perAddressText(limit: number, windowSeconds: number, setting?: string): string {
  const configured = setting ? ` by default (the operator sets it with ${setting})` : "";
  return (
    `${count(limit)} per client address per ${windowWords(windowSeconds)}${configured}, counted from the ` +
    "address's first call in the window. Answers carry RateLimit-Policy and RateLimit; past the limit, " +
    "a 429 with Retry-After."
  );
}

import { TIER_NAMES, TIERS } from "../../pipeline/domain/tiers.ts";

// The rate-limit sentences of the operations, written from the same numbers the server enforces.

// Grouped by hand, as toLocaleString("en-US") writes an integer: its first call loads ICU's number
// formats, about 17 ms of every server's start, for these few descriptions.
const count = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

function windowWords(seconds: number): string {
  if (seconds === 60) return "minute";
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

/** An action limited per key (or per resource), in fixed windows of the clock. */
export function perKeyText(
  what: string,
  rate: { limit: number; windowSeconds: number },
  setting: string,
): string {
  return (
    `${what}: ${count(rate.limit)} per ${windowWords(rate.windowSeconds)} by default (the operator sets it ` +
    `with ${setting}), in fixed windows. Answers carry RateLimit-Policy and RateLimit; past the rate, a 429 ` +
    "with Retry-After, and nothing of the refused request is done."
  );
}

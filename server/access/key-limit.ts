import type { Rate } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail } from "../http/answers.ts";
import { rateLimitHeaders } from "./rate-limit-headers.ts";

export interface RateResult {
  allowed: boolean;
  headers: Record<string, string>;
}

/**
 * Counts `amount` actions of `subject` (a key id, an endpoint id) against `rate`, all or nothing: a
 * batch fits whole or is refused whole. Windows are fixed on the clock (a minute's window ends on the
 * minute), so the counter's key tells its end and no second store read is needed: one atomic consume.
 */
export async function limitByKey(
  context: Pick<AppContext, "store" | "now">,
  rate: Rate,
  subject: string,
  amount = 1,
): Promise<RateResult> {
  const windowMs = rate.windowSeconds * 1000;
  const now = context.now();
  const index = Math.floor(now / windowMs);
  const endsAt = (index + 1) * windowMs;
  const spent = await context.store.consume(
    `keylimit:${rate.name}:${subject}:${index}`,
    rate.limit,
    endsAt,
    amount,
  );
  const resetSeconds = Math.max(1, Math.ceil((endsAt - now) / 1000));
  const headers = rateLimitHeaders(
    rate.name,
    rate.limit,
    rate.windowSeconds,
    rate.limit - spent.count,
    resetSeconds,
  );
  if (!spent.allowed) headers["retry-after"] = String(resetSeconds);
  return { allowed: spent.allowed, headers };
}

/** The 429 of a refused rate, in the quota's form: `detail` says what the rate is and when to retry. */
export function rateRefusal(result: RateResult, what: string, rate: Rate): Response {
  return detail(
    429,
    `Too many ${what}: at most ${rate.limit} per ${describeWindow(rate.windowSeconds)}. ` +
      `Retry after ${result.headers["retry-after"]} seconds.`,
    result.headers,
  );
}

/** A rate's window in words: "minute", "hour", "day", or its seconds. */
export function describeWindow(seconds: number): string {
  if (seconds === 60) return "minute";
  if (seconds === 3600) return "hour";
  if (seconds === 86_400) return "day";
  return `${seconds} seconds`;
}

/** The RateLimit headers of several policies as one field each, a list in the draft's form. */
export function mergedRateHeaders(...sets: Record<string, string>[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const set of sets) {
    for (const [name, value] of Object.entries(set)) {
      merged[name] =
        merged[name] === undefined || name === "retry-after" ? value : `${merged[name]}, ${value}`;
    }
  }
  return merged;
}

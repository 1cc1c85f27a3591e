import type { H3Event } from "h3";
import type { AppContext } from "./context.ts";
import { rateLimitHeaders } from "./rate-limit-headers.ts";
import { requestIp } from "./request-ip.ts";
import { hashKeyPart } from "./store/keys.ts";

export interface IpLimitResult {
  allowed: boolean;
  headers: Record<string, string>;
  /** When the window ends (epoch ms). */
  resetsAt: number;
}

/**
 * Counts one call of a client address against `limit` calls per window. The window opens with the
 * address's first call and lasts `windowSeconds` (a key per 24 hours means 24 hours after the first
 * one). The count is exact under concurrency: it is the store's atomic consume.
 */
export async function limitByIp(
  context: AppContext,
  event: H3Event,
  name: string,
  limit: number,
  windowSeconds: number,
): Promise<IpLimitResult> {
  const ip = hashKeyPart(requestIp(event, context.config.trustProxy), context.ipSecret);
  const now = context.now();
  const opensNow = now + windowSeconds * 1000;
  const spent = await context.store.consume(`iplimit:${name}:${ip}`, limit, opensNow);
  let resetsAt = opensNow;
  if (spent.allowed && spent.count === 1) {
    await context.store.setItem(`iplimit-ends:${name}:${ip}`, opensNow, { ttlSeconds: windowSeconds });
  } else {
    resetsAt = (await context.store.getItem<number>(`iplimit-ends:${name}:${ip}`)) ?? opensNow;
  }
  const resetSeconds = Math.max(1, Math.ceil((resetsAt - now) / 1000));
  const headers = rateLimitHeaders(name, limit, windowSeconds, limit - spent.count, resetSeconds);
  if (!spent.allowed) headers["retry-after"] = String(resetSeconds);
  return { allowed: spent.allowed, headers, resetsAt };
}

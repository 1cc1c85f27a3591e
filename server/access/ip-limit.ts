import type { H3Event } from "h3";
import type { AppContext } from "../context.ts";
import { hashKeyPart } from "../store/keys.ts";
import { limitAddress } from "./ip-address.ts";
import { rateLimitHeaders } from "./rate-limit-headers.ts";
import { requestIp } from "./request-ip.ts";

export interface IpLimitResult {
  allowed: boolean;
  headers: Record<string, string>;
  /** When the window ends (epoch ms). */
  resetsAt: number;
}

// A window's end, once known, does not move until it passes: kept until then in the context's
// `windowEnds`, it saves a store read on every call but a window's first.

/**
 * Counts one call of a client address (an IPv6 one by its network, ./ip-address.ts) against `limit`
 * calls per window. The window opens with the address's first call and lasts `windowSeconds` (a key
 * per 24 hours means 24 hours after the first one). The count is exact under concurrency: it is the store's atomic consume.
 */
export function limitByIp(
  context: AppContext,
  event: H3Event,
  name: string,
  limit: number,
  windowSeconds: number,
): Promise<IpLimitResult> {
  return limitAddressCalls(context, requestIp(event, context.config.trustProxy), name, limit, windowSeconds);
}

/** `limitByIp` for a client address already resolved (`clientIp`), as the fast paths have it. */
export async function limitAddressCalls(
  context: AppContext,
  clientAddress: string,
  name: string,
  limit: number,
  windowSeconds: number,
): Promise<IpLimitResult> {
  const ip = addressHash(context, clientAddress);
  const windowEnds = context.windowEnds;
  const now = context.now();
  const opensNow = now + windowSeconds * 1000;
  const endsKey = `iplimit-ends:${name}:${ip}`;
  const spent = await context.store.consume(`iplimit:${name}:${ip}`, limit, opensNow);
  let resetsAt = opensNow;
  if (spent.allowed && spent.count === 1) {
    await context.store.setItem(endsKey, opensNow, { ttlSeconds: windowSeconds });
    windowEnds.set(endsKey, opensNow, { ttl: windowSeconds * 1000 });
  } else {
    const known = windowEnds.get(endsKey);
    if (known !== undefined) resetsAt = known;
    else {
      const stored = await context.store.getItem<number>(endsKey);
      resetsAt = stored ?? opensNow;
      if (stored !== null && stored > now) windowEnds.set(endsKey, stored, { ttl: stored - now });
    }
  }
  const resetSeconds = Math.max(1, Math.ceil((resetsAt - now) / 1000));
  const headers = rateLimitHeaders(name, limit, windowSeconds, limit - spent.count, resetSeconds);
  if (!spent.allowed) {
    headers["retry-after"] = String(resetSeconds);
    windowEnds.set(`iplimit-over:${name}:${ip}`, resetsAt, { ttl: resetsAt - now });
  }
  return { allowed: spent.allowed, headers, resetsAt };
}

/**
 * The refusal of an address this process has seen refused by `name` in a window that has not ended, or
 * null: a route that must check the limit before paying for a call (and count only some calls) asks it
 * first, at no store read. Per process: another process refuses the address at its own first count.
 */
export function knownRefusal(
  context: AppContext,
  clientAddress: string,
  name: string,
  limit: number,
  windowSeconds: number,
): IpLimitResult | null {
  const resetsAt = context.windowEnds.get(`iplimit-over:${name}:${addressHash(context, clientAddress)}`);
  const now = context.now();
  if (resetsAt === undefined || resetsAt <= now) return null;
  const resetSeconds = Math.max(1, Math.ceil((resetsAt - now) / 1000));
  const headers = rateLimitHeaders(name, limit, windowSeconds, 0, resetSeconds);
  headers["retry-after"] = String(resetSeconds);
  return { allowed: false, headers, resetsAt };
}

const addressHash = (context: AppContext, clientAddress: string): string =>
  hashKeyPart(limitAddress(clientAddress, context.config.ipv6Prefix), context.ipSecret);

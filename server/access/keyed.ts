import type { H3Event } from "h3";
import { TIERS } from "../../pipeline/domain/tiers.ts";
import type { AppContext } from "../context.ts";
import { detail } from "../http/answers.ts";
import { noteKey } from "../metrics/request-notes.ts";
import type { AuthFailure, KeyRecord, Usage } from "./key-service.ts";
import { rateLimitHeaders } from "./rate-limit-headers.ts";

const HOW_TO_GET_A_KEY = "Get a free key with POST /v1/keys and send it in the X-API-Key header.";

const FAILURES: Record<AuthFailure, string> = {
  missing: "Missing API key.",
  malformed: "Malformed API key: it does not have the rp_labs_ form or its checksum does not match.",
  unknown: "Unknown API key.",
  revoked: "This API key has been revoked.",
};

/** Why a key was refused, and how to get one (`howToGetAKey` names where this endpoint reads it). */
export const authFailure = (why: AuthFailure, howToGetAKey = HOW_TO_GET_A_KEY): string =>
  `${FAILURES[why]} ${howToGetAKey}`;

/** The routes that take a key: their answers are the key holder's alone. */
export const KEYED_ROUTES = [
  "/v1/me",
  "/v1/me/**",
  "/v1/papers",
  "/v1/papers/**",
  "/v1/bench/**",
  "/v1/webhooks",
  "/v1/webhooks/**",
  "/mcp",
] as const;

/** The cache-control of every keyed answer but an event stream (see keepPrivate). */
export const PRIVATE_CACHE_CONTROL = "private, no-store";

/**
 * Marks a keyed answer for the key holder only. The key travels in a header (X-API-Key, Authorization
 * bearer) that shared caches are not bound to key on, so without this a proxy could keep one key's
 * answer and hand it to another client. An event stream keeps its `no-transform`.
 */
export function keepPrivate(response: Response): void {
  const transform = response.headers.get("cache-control")?.includes("no-transform") ? ", no-transform" : "";
  response.headers.set("cache-control", `${PRIVATE_CACHE_CONTROL}${transform}`);
}

// Keys in URLs end up in access logs, proxies and browser history: refuse them outright.
const QUERY_KEY_NAMES = ["api_key", "apikey", "key", "x-api-key", "x_api_key", "token"];

/** The refusal of a key sent in the query string. */
export const KEY_IN_QUERY =
  "API keys are not accepted in the query string, where they leak into logs; send the key in the X-API-Key header.";

/** True when the query string carries something named like an API key. */
export const keyInQuery = (query: URLSearchParams): boolean =>
  QUERY_KEY_NAMES.some((name) => query.has(name));

/** The caller's key record, or the 401 that tells them how to get one. */
export async function authorize(event: H3Event, context: AppContext): Promise<KeyRecord | Response> {
  const record = await authorizeKey(context, event.req.headers.get("x-api-key"), event.url.searchParams);
  if (!(record instanceof Response)) noteKey(event.context, record);
  return record;
}

/** `authorize` from the X-API-Key header's value (null when absent) and the query string. */
export async function authorizeKey(
  context: Pick<AppContext, "keys">,
  key: string | null,
  query: URLSearchParams,
): Promise<KeyRecord | Response> {
  if (key === null && keyInQuery(query)) {
    return detail(401, KEY_IN_QUERY);
  }
  const result = await context.keys.authenticate(key);
  return result.ok ? result.record : detail(401, authFailure(result.why));
}

/** The RateLimit headers of a key's quota; none for an unlimited tier, which has no quota to describe. */
export function quotaHeaders(record: KeyRecord, usage: Usage): Record<string, string> {
  const quota = TIERS[record.tier].calls_per_window;
  if (quota === null) return {};
  return rateLimitHeaders(
    "quota",
    quota,
    usage.limits.window_days * 86_400,
    usage.remaining ?? 0,
    usage.reset_seconds,
  );
}

/** Spends `calls` (default one) all or nothing; the 429 when fewer are left. */
export async function spendOrRefuse(
  context: AppContext,
  record: KeyRecord,
  calls = 1,
): Promise<{ headers: Record<string, string> } | Response> {
  const { allowed, usage } = await context.keys.spend(record, calls);
  const headers = quotaHeaders(record, usage);
  if (allowed) return { headers };
  context.metrics.countQuotaRefusal(record.tier);
  const exhausted = usage.remaining === 0;
  return detail(
    429,
    `${exhausted ? "Quota exhausted" : `This request needs ${calls} calls and ${usage.remaining} are left, so none was spent`}: ` +
      `${usage.limits.calls_per_window} calls per ${usage.limits.window_days} days on the ${record.tier} tier. ` +
      `It resets at ${usage.resets_at}.`,
    { ...headers, "retry-after": String(usage.reset_seconds) },
  );
}

import { parseTrustProxy, type TrustProxy } from "./access/client-ip.ts";
import { DEFAULT_IPV6_PREFIX } from "./access/ip-address.ts";
import { DEFAULT_KEY_PREFIX } from "./access/key-format.ts";
import { positiveInt } from "./env-values.ts";
import { METRICS_OFF, type MetricsSettings } from "./metrics/metrics-settings.ts";

/** A rate of actions per key, per resource or per address: at most `limit` per `windowSeconds`. */
export interface Rate {
  /** The policy's name in the RateLimit headers, and its counters' key segment. */
  name: string;
  limit: number;
  windowSeconds: number;
}

/** Server settings, read once from the environment at the edge and passed in as a value. */
export interface ServerConfig {
  trustProxy: TrustProxy;
  /** Per-address limits count an IPv6 client by its network of this many bits (1..128). */
  ipv6Prefix: number;
  keyPrefix: string;
  /** POST /v1/keys: keys per client IP per window. */
  keyIssueLimit: number;
  keyIssueWindowSeconds: number;
  /** POST /v1/verify: calls per client IP per hour. */
  verifyLimit: number;
  /** POST /v1/score/submit: submissions per client IP per 24 hours. */
  submitLimit: number;
  /** How long a client may take to send a request's headers, from its first byte (408 after). */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request, headers and body (408 after). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open after an answer. */
  keepAliveTimeoutMs: number;
  /** Browser origins (`https://app.example`) allowed to call /mcp; requests without Origin always are. */
  mcpAllowedOrigins: readonly string[];
  /** POST /mcp: messages per key per minute that spend no quota (initialize, tools/list, ping...). */
  mcpFreeRate: Rate;
  /** PUT /v1/bench/rubric: new versions per key per hour. */
  benchRubricRate: Rate;
  /** POST /v1/webhooks/{id}/test and .../retry: per key per hour, all endpoints together. */
  webhookActionKeyRate: Rate;
  /** The same actions per endpoint per hour. */
  webhookActionEndpointRate: Rate;
  /** Snapshot days older than the ones held in memory, read from disk: per client address per minute. */
  oldDayRate: Rate;
  /** Writes to a reader's profile (library, ratings, follows, erasure) per key per minute: no quota spent. */
  profileWriteRate: Rate;
  /**
   * Reads of a reader's personal feed (/v1/feeds/for-you/{token}) per key per hour: no quota spent, since
   * a feed reader polls on its own schedule; this bounds what a stuck or shared reader costs.
   */
  feedReadRate: Rate;
  /**
   * Reads of /v1/feeds/for-you/{token} whose token opens no feed, per client address per hour: each costs
   * store reads, and an address past it is refused (429) before any, even for a live token.
   */
  feedMissRate: Rate;
  /**
   * The service's public origin (PUBLIC_BASE_URL): the OAuth issuer and the resource `/mcp` tokens are
   * for. Null: each request's own origin, which is right only when clients reach the server directly.
   */
  publicBaseUrl: string | null;
  /** POST /oauth/register: client registrations per client address per hour. */
  oauthRegisterRate: Rate;
  /** Client metadata documents fetched for one client address per hour (three times the registrations). */
  oauthDocumentRate: Rate;
  /** API keys tried on the consent page per client address per hour, so it is no oracle for guessing keys. */
  oauthConsentRate: Rate;
  /** POST /oauth/token: requests per client address per minute. */
  oauthTokenRate: Rate;
  /** Test-only (OAUTH_ALLOW_LOOPBACK=1): client metadata documents served over http on 127.0.0.1. */
  oauthAllowLoopback: boolean;
  /** /metrics (METRICS_PORT, METRICS_TOKEN) and the request log (LOG_REQUESTS). */
  metrics: MetricsSettings;
}

/**
 * An API's requests are a few kilobytes (the largest body is 64 KiB): any client sends its headers
 * within a second and its body within a few, so 10 s and 30 s only cut off clients that hold sockets
 * on purpose. Node's own defaults (60 s, 300 s) suit uploads, not this. Keep-alive stays at Node's 5 s.
 */
const DEFAULT_TIMEOUTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

function ipv6Prefix(env: NodeJS.ProcessEnv): number {
  const raw = env.IPV6_PREFIX?.trim();
  if (!raw) return DEFAULT_IPV6_PREFIX;
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 128) {
    throw new Error(
      `Expected IPV6_PREFIX to be a whole number from 1 to 128 (the IPv6 prefix length counted as one client), got \`${raw}\``,
    );
  }
  return Number(raw);
}

function timeouts(env: NodeJS.ProcessEnv) {
  const headersTimeoutMs = positiveInt(env, "HTTP_HEADERS_TIMEOUT_MS", DEFAULT_TIMEOUTS.headersTimeoutMs);
  const requestTimeoutMs = positiveInt(env, "HTTP_REQUEST_TIMEOUT_MS", DEFAULT_TIMEOUTS.requestTimeoutMs);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new Error(
      `Expected HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) to be at most HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs}): the headers are part of the request`,
    );
  }
  const keepAliveTimeoutMs = positiveInt(
    env,
    "HTTP_KEEP_ALIVE_TIMEOUT_MS",
    DEFAULT_TIMEOUTS.keepAliveTimeoutMs,
  );
  return { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs };
}

/**
 * MCP_ALLOWED_ORIGINS: comma-separated origins as browsers send them (scheme, host, port if not the
 * default). Nothing by default: a web page's requests to /mcp are refused unless its origin is listed.
 */
function mcpAllowedOrigins(env: NodeJS.ProcessEnv): string[] {
  const entries = (env.MCP_ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  return entries.map((entry) => {
    let origin: string | undefined;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = undefined;
    }
    const normal = entry.toLowerCase().replace(/\/$/, "");
    if (!/^https?:\/\//.test(normal) || origin !== normal) {
      throw new Error(
        `Expected MCP_ALLOWED_ORIGINS to list origins like https://app.example or http://localhost:5173, got \`${entry}\``,
      );
    }
    return origin;
  });
}

export function configFromEnv(env: NodeJS.ProcessEnv): ServerConfig {
  const prefix = env.KEY_PREFIX?.trim() || DEFAULT_KEY_PREFIX;
  if (!/^[a-z][a-z0-9_]{1,30}_$/.test(prefix)) {
    throw new Error(
      `Expected KEY_PREFIX to be lowercase letters, digits and "_", ending in "_", got \`${prefix}\``,
    );
  }
  return {
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    ipv6Prefix: ipv6Prefix(env),
    keyPrefix: prefix,
    keyIssueLimit: positiveInt(env, "KEY_ISSUE_LIMIT", 1),
    keyIssueWindowSeconds: 86_400,
    verifyLimit: positiveInt(env, "VERIFY_RATE_LIMIT", 20),
    submitLimit: positiveInt(env, "SUBMIT_RATE_LIMIT", 3),
    ...timeouts(env),
    mcpAllowedOrigins: mcpAllowedOrigins(env),
    mcpFreeRate: { name: "mcp-free", limit: positiveInt(env, "MCP_FREE_RATE_LIMIT", 60), windowSeconds: 60 },
    benchRubricRate: {
      name: "bench-rubric",
      limit: positiveInt(env, "BENCH_RUBRIC_RATE_LIMIT", 30),
      windowSeconds: 3600,
    },
    profileWriteRate: {
      name: "profile-writes",
      limit: positiveInt(env, "PROFILE_WRITE_RATE_LIMIT", 30),
      windowSeconds: 60,
    },
    feedReadRate: {
      name: "feed-reads",
      limit: positiveInt(env, "FEED_READ_RATE_LIMIT", 60),
      windowSeconds: 3600,
    },
    feedMissRate: {
      name: "feed-misses",
      limit: positiveInt(env, "FEED_MISS_RATE_LIMIT", 60),
      windowSeconds: 3600,
    },
    webhookActionKeyRate: {
      name: "webhook-actions",
      limit: positiveInt(env, "WEBHOOK_ACTION_RATE_LIMIT", 60),
      windowSeconds: 3600,
    },
    webhookActionEndpointRate: {
      name: "webhook-endpoint-actions",
      limit: positiveInt(env, "WEBHOOK_ENDPOINT_ACTION_RATE_LIMIT", 10),
      windowSeconds: 3600,
    },
    oldDayRate: { name: "old-days", limit: positiveInt(env, "OLD_DAY_RATE_LIMIT", 60), windowSeconds: 60 },
    publicBaseUrl: publicBaseUrl(env),
    ...oauthRates(positiveInt(env, "OAUTH_REGISTER_RATE_LIMIT", 10)),
    oauthAllowLoopback: env.OAUTH_ALLOW_LOOPBACK?.trim() === "1",
    // Off here: `picks serve` reads them against its port and refuses bad ones (exit 2), and no other
    // command serves metrics, so a bad METRICS_* setting must not stop `picks keys` or `picks bench`.
    metrics: METRICS_OFF,
  };
}

/** The authorization server's per-address rates; every fetch of a client's document is one made for whoever asks. */
function oauthRates(registrations: number) {
  return {
    oauthRegisterRate: { name: "oauth-register", limit: registrations, windowSeconds: 3600 },
    oauthDocumentRate: { name: "oauth-client-documents", limit: registrations * 3, windowSeconds: 3600 },
    oauthConsentRate: { name: "oauth-consent", limit: 30, windowSeconds: 3600 },
    oauthTokenRate: { name: "oauth-token", limit: 120, windowSeconds: 60 },
  };
}

function publicBaseUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = env.PUBLIC_BASE_URL?.trim();
  if (!raw) return null;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  if (
    !url ||
    (url.protocol !== "https:" && url.protocol !== "http:") ||
    url.search ||
    url.hash ||
    url.username
  ) {
    throw new Error(
      `Expected PUBLIC_BASE_URL to be an http(s) URL such as https://picks.example.org, got \`${raw}\``,
    );
  }
  return url.href.replace(/\/$/, "");
}

export const DEFAULT_CONFIG: ServerConfig = configFromEnv({});

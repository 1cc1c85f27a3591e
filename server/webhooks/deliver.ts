import { LRUCache } from "lru-cache";
import type { Agent } from "undici";
import { type HostLookup, resolveChecked } from "../outbound/checked-address.ts";
import { checkUrl, pinnedLookup } from "../outbound/safe-fetch.ts";

export interface PostOptions {
  timeoutMs: number;
  allowLoopback: boolean;
  lookup: HostLookup;
  userAgent: string;
}

export interface PostOutcome {
  delivered: boolean;
  statusCode: number | null;
  /** Why no answer counted: the safe fetch's failure codes, `http_status` or `redirect_refused`. */
  errorCode: string | null;
  /** For the operator's log: addresses and network errors, never answered to the endpoint's owner. */
  detail: string | null;
}

// Connections are kept per checked address, so deliveries to one host (many endpoints of one
// receiver, or retries) reuse them instead of opening one each: in the fan-out bench a new connection
// per delivery made 1,000 deliveries take 10 s, and the server's own answers slowed by 90%. An agent
// only ever connects to its address; idle connections close after a few seconds, evicted agents too.
const agents = new LRUCache<string, Agent>({ max: 256 });

// Imported with the first delivery: a server that sends none never loads undici (about 70 ms of CPU).
const undici = () => import("undici");

function agentFor(make: typeof Agent, address: string, family: 4 | 6, timeoutMs: number): Agent {
  const key = `${family}/${address}/${timeoutMs}`;
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new make({
      connect: { lookup: pinnedLookup(address, family), timeout: timeoutMs },
      connections: 16,
    });
    agents.set(key, agent);
  }
  return agent;
}

const failed = (errorCode: string, detail: string, statusCode: number | null = null): PostOutcome => ({
  delivered: false,
  statusCode,
  errorCode,
  detail,
});

/**
 * POSTs one signed delivery through the submissions' safe fetching: the url is checked, its host
 * resolved once and every address checked, and the connection goes to the checked address only. A
 * redirect is not followed (it could lead anywhere): it is an answer that is not 2xx.
 */
export async function postChecked(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostOutcome> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return failed("url_refused", "not a valid absolute url");
  }
  const refused = checkUrl(url);
  if (refused) return failed(refused.code, refused.reason);
  // One timer per attempt, cleared when it ends: AbortSignal.timeout cost 11-13 µs an attempt (a
  // weakly held signal and its timer), a controller and a plain timer under 1 µs.
  const controller = new AbortController();
  const { signal } = controller;
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    return await send(url, headers, body, options, signal);
  } finally {
    clearTimeout(timer);
  }
}

/** The attempt after the url's checks, until `signal` aborts it. */
async function send(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
  signal: AbortSignal,
): Promise<PostOutcome> {
  const resolved = await resolveChecked(url, options.lookup, options.allowLoopback);
  if (!resolved.ok) return failed(resolved.failure.code, resolved.failure.detail ?? resolved.failure.reason);
  const { Agent, request } = await undici();
  const agent = agentFor(Agent, resolved.address, resolved.family, options.timeoutMs);
  try {
    const response = await request(url, {
      dispatcher: agent,
      method: "POST",
      signal,
      headers: { ...headers, "content-type": "application/json", "user-agent": options.userAgent },
      body,
    });
    // The answer's body means nothing to the sender; it is drained so the connection closes cleanly.
    await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
    const status = response.statusCode;
    if (status >= 200 && status <= 299)
      return { delivered: true, statusCode: status, errorCode: null, detail: null };
    if (status >= 300 && status <= 399) return failed("redirect_refused", `${url.host} redirected`, status);
    return failed("http_status", `${url.host} answered ${status}`, status);
  } catch (error) {
    if (signal.aborted) return failed("timeout", `${url.host}: no answer within ${options.timeoutMs} ms`);
    const code = (error as { code?: string }).code;
    return failed("unreachable", `${url.host}: ${code ?? ""} ${(error as Error).message}`.slice(0, 300));
  }
}

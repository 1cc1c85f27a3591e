// The one outbound HTTP client. Every upstream call goes through it, so timeouts, retries, politeness,
// the circuit breaker of each upstream and the counts in the run record hold for all of them alike. The
// one OpenAI-compatible model client sits on it: the judge and the verification's semantic review ask
// their models through it.

import { setTimeout as delay } from "node:timers/promises";
import pLimit, { type LimitFunction } from "p-limit";
import {
  type AttemptOutcome,
  admit,
  type Circuit,
  type CircuitPolicy,
  type CircuitStateName,
  CLOSED,
  DEFAULT_CIRCUIT_POLICY,
  outcomeOfStatus,
  record,
} from "./domain/circuit.ts";
import type { HttpCounts, UpstreamCounts } from "./domain/run-record.ts";
import {
  backoffDelay,
  HttpError,
  type HttpFailureKind,
  isRetryableStatus,
  oneLine,
  parseRetryAfter,
  shownUrl,
} from "./http-rules.ts";

export interface UpstreamPolicy {
  /** Requests to this upstream in flight at once. */
  concurrency: number;
  /**
   * Least time from the end of one request to this upstream (or its start, when several run at once) to
   * the start of the next, retries included. Counting from the end keeps the spacing as the server sees it.
   */
  minIntervalMs: number;
}

export interface HttpClientOptions {
  /** Sent with every request; say who you are and how to reach you (see `userAgent`). */
  userAgent: string;
  connectTimeoutMs?: number;
  /** One attempt, from connecting to the last byte of the body. */
  timeoutMs?: number;
  /** Retries after the first attempt, on 408, 429, 5xx (but 501), network errors and timeouts. */
  retries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** A `Retry-After` longer than this is not waited for: the call fails at once instead. */
  retryAfterMaxMs?: number;
  maxBodyBytes?: number;
  /** Requests in flight at once, over all upstreams. */
  concurrency?: number;
  /** Politeness per upstream name (`arxiv`, ...); unnamed upstreams get 4 at once and no spacing. */
  upstreams?: Record<string, Partial<UpstreamPolicy>>;
  /** The circuit breaker of every upstream: how many consecutive failures open it, and for how long. */
  circuit?: Partial<CircuitPolicy>;
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1): the jitter of the backoff. */
  random?: () => number;
  /** Milliseconds since the epoch: spacing and `Retry-After` dates. */
  now?: () => number;
}

export interface HttpRequest {
  url: string;
  /** Names the upstream for politeness and counting, e.g. `arxiv`; the URL's host when absent. */
  upstream?: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** This call's attempt timeout, when it differs from the client's (a language model answers slowly). */
  timeoutMs?: number;
  /** This call's body limit, when it differs from the client's. */
  maxBodyBytes?: number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  attempts: number;
}

export interface HttpClient {
  /**
   * Resolves with a 2xx answer; throws `HttpError` once the retries are spent or not worth trying, or
   * at once (kind `open`) while the upstream's circuit breaker is open.
   */
  send(request: HttpRequest): Promise<HttpResponse>;
  counts(): HttpCounts;
  /** The circuit of every upstream called so far that is not closed. */
  circuits(): Record<string, CircuitStateName>;
  close(): Promise<void>;
}

class AttemptFailure extends Error {
  readonly kind: Exclude<HttpFailureKind, "status">;
  constructor(kind: Exclude<HttpFailureKind, "status">, message: string) {
    super(message);
    this.kind = kind;
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

interface Lane {
  limit: LimitFunction;
  minIntervalMs: number;
  lastStart: number;
  lastEnd: number;
  gate: Promise<void>;
  counts: UpstreamCounts;
  circuit: Circuit;
  opened: number;
  shortCircuited: number;
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retries = options.retries ?? 3;
  const backoffBaseMs = options.backoffBaseMs ?? 1000;
  const backoffMaxMs = options.backoffMaxMs ?? 30_000;
  const retryAfterMaxMs = options.retryAfterMaxMs ?? 120_000;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  // undici is imported with the first request: a server whose client never calls out does not load it
  // (about 70 ms of CPU at its start).
  let sender:
    | Promise<{ agent: import("undici").Agent; request: typeof import("undici").request }>
    | undefined;
  const senderOf = () =>
    (sender ??= import("undici").then(({ Agent, request }) => ({
      agent: new Agent({ connect: { timeout: options.connectTimeoutMs ?? 10_000 } }),
      request,
    })));
  const overall = pLimit(options.concurrency ?? 8);
  const lanes = new Map<string, Lane>();
  const circuitPolicy: CircuitPolicy = { ...DEFAULT_CIRCUIT_POLICY, ...options.circuit };
  let closing: Promise<void> | undefined;
  const totals = { requests: 0, retries: 0, failures: 0, politeness_wait_ms: 0, backoff_wait_ms: 0 };

  function laneFor(name: string): Lane {
    let lane = lanes.get(name);
    if (!lane) {
      const policy = options.upstreams?.[name] ?? {};
      lane = {
        limit: pLimit(policy.concurrency ?? 4),
        minIntervalMs: policy.minIntervalMs ?? 0,
        lastStart: Number.NEGATIVE_INFINITY,
        lastEnd: Number.NEGATIVE_INFINITY,
        gate: Promise.resolve(),
        counts: { requests: 0, retries: 0, failures: 0 },
        circuit: CLOSED,
        opened: 0,
        shortCircuited: 0,
      };
      lanes.set(name, lane);
    }
    return lane;
  }

  /** Waits for this upstream's spacing; chained so that concurrent callers also stay spaced. */
  function takeTurn(lane: Lane): Promise<void> {
    const turn = lane.gate.then(async () => {
      const wait = Math.max(lane.lastStart, lane.lastEnd) + lane.minIntervalMs - now();
      if (wait > 0) {
        totals.politeness_wait_ms += wait;
        await sleep(wait);
      }
      lane.lastStart = now();
    });
    lane.gate = turn;
    return turn;
  }

  async function readBody(
    body: AsyncIterable<Uint8Array> & { destroy(): unknown },
    limit: number,
  ): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limit) {
        body.destroy();
        throw new AttemptFailure("too-large", `the answer is larger than ${limit} bytes`);
      }
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks).toString("utf8");
  }

  async function attempt(call: HttpRequest, lane: Lane): Promise<Answer> {
    await takeTurn(lane);
    totals.requests += 1;
    lane.counts.requests += 1;
    const limit = call.timeoutMs ?? timeoutMs;
    const signal = AbortSignal.timeout(limit);
    try {
      const { agent, request } = await senderOf();
      const response = await request(call.url, {
        method: call.method ?? "GET",
        headers: { "user-agent": options.userAgent, ...call.headers },
        body: call.body,
        signal,
        dispatcher: agent,
      });
      const text = await readBody(response.body, call.maxBodyBytes ?? maxBodyBytes);
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (error instanceof AttemptFailure) throw error;
      if (signal.aborted) throw new AttemptFailure("timeout", `no complete answer within ${limit} ms`);
      const code = (error as { code?: unknown }).code;
      const detail = `${typeof code === "string" ? `${code}: ` : ""}${(error as Error).message}`;
      throw new AttemptFailure("network", oneLine(detail));
    } finally {
      lane.lastEnd = now();
    }
  }

  function settle(lane: Lane, outcome: AttemptOutcome): void {
    const after = record(lane.circuit, outcome, now(), circuitPolicy);
    if (after.state === "open" && lane.circuit.state !== "open") lane.opened += 1;
    lane.circuit = after;
  }

  async function run(call: HttpRequest, name: string, lane: Lane): Promise<HttpResponse> {
    const fail = (message: string, kind: HttpFailureKind, attempts: number, status?: number): never => {
      totals.failures += 1;
      lane.counts.failures += 1;
      const named = `${name}: ${call.method ?? "GET"} ${shownUrl(call.url)}`;
      const what =
        attempts === 0
          ? `${named} not attempted`
          : `${named} failed after ${attempts} attempt${attempts === 1 ? "" : "s"}`;
      throw new HttpError(`${what}: ${message}`, {
        kind,
        upstream: name,
        attempts,
        ...(status === undefined ? {} : { status }),
      });
    };
    for (let attempts = 1; ; attempts++) {
      const admission = admit(lane.circuit, now());
      lane.circuit = admission.circuit;
      if (!admission.admitted) {
        lane.shortCircuited += 1;
        const circuit = lane.circuit;
        const due =
          circuit.state === "open"
            ? `; the next probe in ${Math.ceil((circuit.until - now()) / 1000)} s`
            : "";
        const what = `its circuit is open after ${circuitPolicy.failureThreshold} failures in a row${due}`;
        return fail(attempts === 1 ? what : `${what}, after its last attempt failed`, "open", attempts - 1);
      }
      let answer: Answer | AttemptFailure;
      try {
        answer = await attempt(call, lane);
      } catch (error) {
        if (!(error instanceof AttemptFailure)) throw error;
        answer = error;
      }
      settle(
        lane,
        answer instanceof AttemptFailure
          ? answer.kind === "too-large"
            ? "answered"
            : "failed"
          : outcomeOfStatus(answer.status),
      );
      if (!(answer instanceof AttemptFailure) && answer.status >= 200 && answer.status < 300) {
        return { ...answer, attempts };
      }
      const problem =
        answer instanceof AttemptFailure
          ? answer.message
          : `HTTP ${answer.status}${answer.text.trim() ? ` (${oneLine(answer.text)})` : ""}`;
      const kind = answer instanceof AttemptFailure ? answer.kind : "status";
      const status = answer instanceof AttemptFailure ? undefined : answer.status;
      const retryable =
        answer instanceof AttemptFailure ? answer.kind !== "too-large" : isRetryableStatus(answer.status);
      if (!retryable || attempts > retries) return fail(problem, kind, attempts, status);
      let wait = backoffDelay(attempts, backoffBaseMs, backoffMaxMs, random());
      if (!(answer instanceof AttemptFailure)) {
        const header = answer.headers["retry-after"];
        const asked = parseRetryAfter(Array.isArray(header) ? header[0] : header, now());
        if (asked !== undefined && asked > retryAfterMaxMs) {
          const why = `${problem}, Retry-After asks for ${Math.ceil(asked / 1000)} s, more than the ${retryAfterMaxMs / 1000} s this client waits`;
          return fail(why, kind, attempts, status);
        }
        if (asked !== undefined) wait = asked;
      }
      // Open now: waiting to retry would only end in a refusal.
      if (lane.circuit.state !== "closed")
        return fail(`${problem}; its circuit is now open`, kind, attempts, status);
      totals.retries += 1;
      lane.counts.retries += 1;
      totals.backoff_wait_ms += wait;
      await sleep(wait);
    }
  }

  return {
    send(call) {
      const name = call.upstream ?? new URL(call.url).host;
      const lane = laneFor(name);
      // The upstream's slot first, then the overall one: calls queued for a slow upstream hold no overall slot.
      return lane.limit(() => overall(() => run(call, name, lane)));
    },
    counts() {
      const by_upstream: Record<string, UpstreamCounts> = {};
      for (const [name, lane] of lanes) {
        by_upstream[name] = {
          ...lane.counts,
          ...(lane.opened > 0
            ? {
                circuit: lane.circuit.state,
                circuit_opened: lane.opened,
                short_circuited: lane.shortCircuited,
              }
            : {}),
        };
      }
      return {
        ...totals,
        politeness_wait_ms: Math.round(totals.politeness_wait_ms),
        backoff_wait_ms: Math.round(totals.backoff_wait_ms),
        by_upstream,
      };
    },
    circuits() {
      const open: Record<string, CircuitStateName> = {};
      for (const [name, lane] of lanes) if (lane.circuit.state !== "closed") open[name] = lane.circuit.state;
      return open;
    },
    close() {
      closing ??= sender === undefined ? Promise.resolve() : sender.then(({ agent }) => agent.close());
      return closing;
    },
  };
}

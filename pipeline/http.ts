// The one outbound HTTP client. Every upstream call goes through it, so timeouts, retries, politeness
// and the counts in the run record hold for all of them alike. The one OpenAI-compatible model client
// sits on it: the judge and the verification's semantic review ask their models through it.

import { setTimeout as delay } from "node:timers/promises";
import pLimit, { type LimitFunction } from "p-limit";
import { Agent, request } from "undici";
import { z } from "zod";
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
  /** Resolves with a 2xx answer; throws `HttpError` once the retries are spent or not worth trying. */
  send(request: HttpRequest): Promise<HttpResponse>;
  counts(): HttpCounts;
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
  const agent = new Agent({ connect: { timeout: options.connectTimeoutMs ?? 10_000 } });
  const overall = pLimit(options.concurrency ?? 8);
  const lanes = new Map<string, Lane>();
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

  async function run(call: HttpRequest, name: string, lane: Lane): Promise<HttpResponse> {
    const fail = (message: string, kind: HttpFailureKind, attempts: number, status?: number): never => {
      totals.failures += 1;
      lane.counts.failures += 1;
      const what = `${name}: ${call.method ?? "GET"} ${shownUrl(call.url)} failed after ${attempts} attempt`;
      throw new HttpError(`${what}${attempts === 1 ? "" : "s"}: ${message}`, {
        kind,
        upstream: name,
        attempts,
        ...(status === undefined ? {} : { status }),
      });
    };
    for (let attempts = 1; ; attempts++) {
      let answer: Answer | AttemptFailure;
      try {
        answer = await attempt(call, lane);
      } catch (error) {
        if (!(error instanceof AttemptFailure)) throw error;
        answer = error;
      }
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
      for (const [name, lane] of lanes) by_upstream[name] = { ...lane.counts };
      return {
        ...totals,
        politeness_wait_ms: Math.round(totals.politeness_wait_ms),
        backoff_wait_ms: Math.round(totals.backoff_wait_ms),
        by_upstream,
      };
    },
    close() {
      closing ??= agent.close();
      return closing;
    },
  };
}

export interface ModelClientOptions {
  /** Its retries, politeness and counts apply (upstream `llm`). */
  client: HttpClient;
  /** OpenAI-compatible API root, e.g. https://api.openai.com/v1; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** One attempt, connection to last byte. */
  timeoutMs: number;
}

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

/** One question to the model, and the schema its JSON answer must match. */
export interface ModelQuestion<T> {
  messages: ChatMessage[];
  /** Sent as `response_format` (OpenAI `json_schema`). */
  responseFormat: Record<string, unknown>;
  answer: z.ZodType<T>;
  temperature?: number;
}

/** Tokens the endpoint billed; 0 when it does not say. */
export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
}

/** `unavailable`: no 2xx answer; `timeout`: none in time; `invalid`: an answer that cannot be used. */
export type ModelFailureKind = "unavailable" | "timeout" | "invalid";

export type ModelResult<T> =
  | { ok: true; answer: T; usage: ModelUsage }
  | { ok: false; kind: ModelFailureKind; problem: string; usage: ModelUsage };

export interface ModelClient {
  readonly model: string;
  /** Every way the model can fail is a result; only a bug throws. */
  ask<T>(question: ModelQuestion<T>): Promise<ModelResult<T>>;
}

/** No usable answer is near this size (a judge's is a few kilobytes); a larger one is not read. */
export const MAX_MODEL_ANSWER_BYTES = 1 << 20;

// The envelope is read leniently: a usage block in an odd shape costs the token count, not the answer.
const TokenCount = z.int().min(0).catch(0);
const EnvelopeSchema = z.object({
  choices: z
    .array(
      z
        .object({
          finish_reason: z.unknown().optional(),
          message: z.object({ content: z.unknown().optional(), refusal: z.unknown().optional() }).optional(),
        })
        .optional()
        .catch(undefined),
    )
    .catch([]),
  usage: z
    .object({ prompt_tokens: TokenCount, completion_tokens: TokenCount })
    .catch({ prompt_tokens: 0, completion_tokens: 0 }),
});

const FAILURE_KINDS: Readonly<Record<HttpFailureKind, ModelFailureKind>> = {
  status: "unavailable",
  network: "unavailable",
  timeout: "timeout",
  "too-large": "invalid",
};

/** The message content as a `T`, or why it is not one. */
function readAnswer<T>(content: string, schema: z.ZodType<T>): { answer: T } | { problem: string } {
  // Some servers wrap the JSON in a Markdown fence despite the response format; the fence carries nothing.
  const unfenced = content
    .trim()
    .replace(/^```(?:json)?[ \t]*\n?/, "")
    .replace(/\n?```$/, "");
  let json: unknown;
  try {
    json = JSON.parse(unfenced);
  } catch (error) {
    return { problem: `the model's answer is not valid JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { answer: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return {
    problem: `the model's answer does not match the expected schema (${where}${issue?.message ?? "invalid"})`,
  };
}

/**
 * A model behind an OpenAI-compatible chat-completions API, asked for one JSON answer at a time
 * through the HTTP client (as upstream `llm`). The answer is read to at most MAX_MODEL_ANSWER_BYTES and checked
 * against the question's schema; what the endpoint billed is counted even when the answer is unusable.
 */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const { client, model, timeoutMs } = options;
  const url = `${options.baseUrl.trim().replace(/\/+$/, "")}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

  return {
    model,
    async ask(question) {
      const body = JSON.stringify({
        model,
        ...(question.temperature === undefined ? {} : { temperature: question.temperature }),
        messages: question.messages,
        response_format: question.responseFormat,
      });
      let text: string;
      try {
        const maxBodyBytes = MAX_MODEL_ANSWER_BYTES;
        ({ text } = await client.send({
          url,
          method: "POST",
          upstream: "llm",
          headers,
          body,
          timeoutMs,
          maxBodyBytes,
        }));
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const problem = `the model request failed: ${error.message}`;
        return {
          ok: false,
          kind: FAILURE_KINDS[error.kind],
          problem,
          usage: { promptTokens: 0, completionTokens: 0 },
        };
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const envelope = EnvelopeSchema.safeParse(json);
      const usage = envelope.success
        ? {
            promptTokens: envelope.data.usage.prompt_tokens,
            completionTokens: envelope.data.usage.completion_tokens,
          }
        : { promptTokens: 0, completionTokens: 0 };
      const invalid = (problem: string) => ({ ok: false, kind: "invalid", problem, usage }) as const;
      if (json === undefined) return invalid("the model endpoint answered with a body that is not JSON");
      const choice = envelope.data?.choices[0];
      const { content, refusal } = choice?.message ?? {};
      if (typeof refusal === "string" && refusal)
        return invalid(`the model refused: ${oneLine(refusal, 200)}`);
      if (choice?.finish_reason === "length")
        return invalid("the model's answer was cut off (finish_reason: length)");
      if (typeof content !== "string")
        return invalid("the model endpoint's answer has no choices[0].message.content string");
      const read = readAnswer(content, question.answer);
      return "problem" in read ? invalid(read.problem) : { ok: true, answer: read.answer, usage };
    },
  };
}

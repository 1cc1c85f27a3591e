// The rules of the outbound HTTP client that need no I/O: which failures are retried and after how long,
// how a call names itself, and the errors it ends with.

/** `open`: not attempted, the upstream's circuit breaker is open (see domain/circuit.ts). */
export type HttpFailureKind = "status" | "network" | "timeout" | "too-large" | "open";

/** An upstream call that failed for good; the message names the upstream, the URL and what went wrong. */
export class HttpError extends Error {
  override name = "HttpError";
  readonly kind: HttpFailureKind;
  readonly status: number | undefined;
  readonly upstream: string;
  readonly attempts: number;
  constructor(
    message: string,
    details: { kind: HttpFailureKind; status?: number; upstream: string; attempts: number },
  ) {
    super(message);
    this.kind = details.kind;
    this.status = details.status;
    this.upstream = details.upstream;
    this.attempts = details.attempts;
  }
}

/** A 2xx answer whose body is not what the upstream promised (not JSON, wrong shape, wrong length). */
export class AnswerError extends Error {
  override name = "AnswerError";
}

/** A User-Agent that says who calls and how to reach them, as arXiv and OpenAlex ask. */
export function userAgent(product: string, version: string, contact: string | undefined): string {
  const trimmed = contact?.trim();
  if (!trimmed) return `${product}/${version} (no contact configured)`;
  return `${product}/${version} (${/^https?:\/\//.test(trimmed) ? trimmed : `mailto:${trimmed}`})`;
}

/** Milliseconds to wait from a `Retry-After` value (delta seconds or an HTTP date); undefined if unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Statuses worth another attempt: timeouts, rate limits, and server errors but 501 Not Implemented. */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 429 || (status >= 500 && status !== 501);

/**
 * The wait before retry `retry` (1, 2, ...): exponential, at most `maxMs`, with "equal jitter" so callers
 * that failed together do not come back together. `random` is in [0, 1).
 */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random * ceiling) / 2);
}

/** Where a URL points, without its query: query strings can carry API keys. */
export const shownUrl = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

export const oneLine = (text: string, max = 160): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

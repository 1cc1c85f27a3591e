// Fetching a url that a stranger typed. Each hop resolves the host once, checks every address, and
// connects to the checked address through a lookup that can answer nothing else, so a DNS answer that
// changes between check and connect (rebinding) never reaches a refused address. TLS keeps the host
// name for SNI and certificate checks, and the Host header is the url's.
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import type { Failure } from "../../pipeline/domain/submission.ts";
import { type HostLookup, resolveChecked } from "./checked-address.ts";
import { isTextType, parseContentType } from "./content-type.ts";

export interface SafeFetchOptions {
  /** From the first lookup to the last byte, redirects included. */
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Test-only: lets loopback addresses through so tests can serve pages on 127.0.0.1. */
  allowLoopback: boolean;
  lookup: HostLookup;
  userAgent: string;
  /** Certificates to trust instead of the system's (tests serving https on loopback). */
  ca?: string;
  /** Aborts the fetch from outside (the worker lost its lease); the abort is thrown, not a failure. */
  signal?: AbortSignal;
  /** The media types whose bodies are read (with the Accept header sent); default: text pages. */
  readTypes?: readonly string[];
}

export interface FetchedPage {
  finalUrl: string;
  redirects: number;
  status: number;
  contentType: string | null;
  /** Null when the content type is not text-like: such a body is never read. */
  body: Uint8Array | null;
  bytes: number;
}

export type SafeFetchResult = { ok: true; page: FetchedPage } | { ok: false; failure: Failure };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MIB = 1024 * 1024;

const fail = (code: Failure["code"], reason: string, detail?: string): SafeFetchResult => ({
  ok: false,
  failure: { code, reason, ...(detail ? { detail } : {}) },
});

// Certificate problems are the page's to fix and say nothing about the server's network.
const TLS_ERROR = /^(ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$)/;

/** A connection that failed: the submitter learns that it failed; the operator learns how and where. */
function unreachable(error: unknown, host: string): SafeFetchResult {
  const code = (error as { code?: string }).code;
  const detail = `${host}: ${code ? `${code} ` : ""}${(error as Error).message ?? String(error)}`.slice(
    0,
    500,
  );
  if (code && TLS_ERROR.test(code)) {
    return fail(
      "unreachable",
      "The page's TLS certificate could not be verified for its host name; submit an https url with a valid certificate.",
      detail,
    );
  }
  return fail(
    "unreachable",
    "The page could not be fetched; check that the url is reachable from the Internet.",
    detail,
  );
}

/** A lookup that answers only the address that was checked, whatever name it is asked for. */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

function racedWith<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export function checkUrl(url: URL): Failure | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { code: "url_refused", reason: `Only http and https urls are fetched, not ${url.protocol}` };
  }
  if (url.username || url.password) {
    return {
      code: "url_refused",
      reason: "The url carries a user name or password; submit a public url without them.",
    };
  }
  return null;
}

// Destroying an undici body emits an AbortError; unheard, it would crash the process.
function discard(body: Readable): void {
  body.on("error", () => {});
  body.destroy();
}

/** The whole body, or null (and the rest unread) once it passes `maxBytes`. */
async function readCapped(body: Readable, maxBytes: number): Promise<Uint8Array | null> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += (chunk as Buffer).length;
    if (bytes > maxBytes) {
      discard(body);
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

const sizeText = (bytes: number) => (bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`);

/** Fetches a page under the rules above; never throws except for an abort of `options.signal`. */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeFetchResult> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const at = { url: undefined as URL | undefined };
  try {
    return await fetchHops(rawUrl, options, signal, at);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (deadline.aborted) {
      const seconds = options.timeoutMs / 1000;
      return fail(
        "timeout",
        `The page did not arrive within ${seconds} seconds; submit a url that answers faster.`,
        `${at.url?.host ?? rawUrl}: no complete answer within ${options.timeoutMs} ms`,
      );
    }
    return unreachable(error, at.url?.host ?? rawUrl);
  }
}

/** `at.url` is the hop being fetched, for the detail of a failure thrown out of it. */
async function fetchHops(
  rawUrl: string,
  options: SafeFetchOptions,
  signal: AbortSignal,
  at: { url: URL | undefined },
): Promise<SafeFetchResult> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return fail("url_refused", "The url is not a valid absolute URL.");
  }
  for (let redirects = 0; ; redirects++) {
    at.url = url;
    const hop = await fetchHop(url, redirects, options, signal);
    if (!("next" in hop)) return hop;
    url = hop.next;
  }
}

type Header = (name: string) => string | null;

/**
 * One hop: the url checked, its host resolved to an allowed address and the connection pinned to it;
 * the url to fetch next when the answer is a redirect.
 */
async function fetchHop(
  url: URL,
  redirects: number,
  options: SafeFetchOptions,
  signal: AbortSignal,
): Promise<SafeFetchResult | { next: URL }> {
  const refused = checkUrl(url);
  if (refused) return { ok: false, failure: refused };
  const resolved = await racedWith(
    resolveChecked(url, options.lookup, options.allowLoopback, redirects > 0),
    signal,
  );
  if (!resolved.ok) return resolved;
  // Imported at the first outbound call: a server that makes none never loads undici (about 70 ms of CPU).
  const { Agent, request } = await import("undici");
  const agent = new Agent({
    connect: {
      lookup: pinnedLookup(resolved.address, resolved.family),
      timeout: options.timeoutMs,
      ...(options.ca ? { ca: options.ca } : {}),
    },
    connections: 1,
  });
  try {
    const response = await request(url, {
      dispatcher: agent,
      method: "GET",
      signal,
      headers: {
        "user-agent": options.userAgent,
        accept:
          options.readTypes?.join(", ") ??
          "text/html, application/xhtml+xml, text/plain;q=0.9, text/markdown;q=0.9, */*;q=0.1",
        "accept-encoding": "identity",
      },
    });
    const header: Header = (name) => {
      const value = response.headers[name];
      return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
    };
    const location = header("location");
    if (REDIRECTS.has(response.statusCode) && location) {
      discard(response.body);
      return redirectTarget(url, location, redirects, options.maxRedirects);
    }
    if (response.statusCode < 200 || response.statusCode > 299) {
      discard(response.body);
      return fail(
        "http_status",
        `The page answered HTTP ${response.statusCode}; submit a url that answers 200 without a login.`,
      );
    }
    // Read before the agent is destroyed below.
    return await readPage(response.body, response.statusCode, header, url, redirects, options);
  } finally {
    void agent.destroy().catch(() => {});
  }
}

/** Where a redirect leads, or why it is not followed. */
function redirectTarget(
  url: URL,
  location: string,
  redirects: number,
  maxRedirects: number,
): SafeFetchResult | { next: URL } {
  if (redirects >= maxRedirects) {
    return fail(
      "too_many_redirects",
      `The url redirects more than ${maxRedirects} times; submit the page's final url.`,
    );
  }
  try {
    return { next: new URL(location, url) };
  } catch {
    return fail(
      "unreachable",
      "The page redirects to a location that is not a valid url; submit the page's final url.",
      `redirect from ${url.href} to ${location.slice(0, 200)}`,
    );
  }
}

/** A 2xx answer's page: its body when its type is one to read and it is within the size cap. */
async function readPage(
  body: Readable,
  status: number,
  header: Header,
  url: URL,
  redirects: number,
  options: SafeFetchOptions,
): Promise<SafeFetchResult> {
  const page = { finalUrl: url.href, redirects, status, contentType: header("content-type") };
  const type = parseContentType(page.contentType);
  if (options.readTypes ? !(type && options.readTypes.includes(type.mime)) : !isTextType(type)) {
    discard(body);
    return { ok: true, page: { ...page, body: null, bytes: 0 } };
  }
  const tooLarge = fail(
    "too_large",
    `The page is larger than ${sizeText(options.maxBytes)}; ` +
      "submit a smaller page, such as the runtime's README or overview.",
  );
  if (Number(header("content-length") ?? 0) > options.maxBytes) {
    discard(body);
    return tooLarge;
  }
  const read = await readCapped(body, options.maxBytes);
  return read ? { ok: true, page: { ...page, body: read, bytes: read.length } } : tooLarge;
}

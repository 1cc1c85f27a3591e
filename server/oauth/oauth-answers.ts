import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { FastResponse } from "srvx";
import type { AppContext } from "../context.ts";
import { json } from "../http/answers.ts";

// How the authorization server answers: its JSON errors, its pages, its CORS, and the one place that
// builds a redirect (`redirectTo`), which only ever goes to a URI `redirectMatches` accepted.

/** Tokens and codes never sit in a cache (RFC 6749 §5.1). */
export const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };
/** Metadata, registration, token and revocation are called from browser-based clients too. */
export const OPEN_CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-expose-headers": "www-authenticate",
};

const ERROR_HEADERS: Record<string, string> = { ...NO_STORE, ...OPEN_CORS };

/** An OAuth error in the RFCs' JSON form; `headers` adds to its own (a 429's Retry-After and RateLimit). */
export const oauthError = (
  status: number,
  error: string,
  description: string,
  headers?: Record<string, string>,
): Response =>
  json(
    status,
    { error, error_description: description },
    headers ? { ...headers, ...ERROR_HEADERS } : ERROR_HEADERS,
  );

/** This service's public origin: PUBLIC_BASE_URL, else the request's own. */
export function baseUrlOf(context: Pick<AppContext, "config">, request: Request): string {
  return context.config.publicBaseUrl ?? new URL(request.url).origin;
}

export const resourceOf = (base: string): string => `${base}/mcp`;
export const resourceMetadataOf = (base: string): string =>
  `${base}/.well-known/oauth-protected-resource/mcp`;

/** A page of the authorization server: framed by nobody, loading only the site's stylesheet. */
export function htmlPage(
  status: number,
  body: string,
  formTarget?: string,
  headers: Record<string, string> = {},
): Response {
  const formAction = ["'self'", ...(formTarget ? [formTarget] : [])].join(" ");
  return new FastResponse(body, {
    status,
    headers: {
      ...headers,
      ...NO_STORE,
      "content-type": "text/html; charset=utf-8",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      // form-action covers the redirect that follows the form (Chromium checks it): the client's URI.
      "content-security-policy": `default-src 'none'; style-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    },
  });
}

/** What the consent form's CSP must allow the approval's redirect to reach. */
export function formTargetOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
}

/** The one redirect of the server: back to a redirect URI already matched against the client's. */
export function redirectTo(redirectUri: string, params: Record<string, string | null>): Response {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return new FastResponse(null, { status: 302, headers: { ...NO_STORE, location: url.href } });
}

const CSRF_COOKIE = "picks_oauth_csrf";
/** How long a consent form may be sent back: its token ends on the server, its cookie in the browser. */
export const CSRF_SECONDS = 900;

const csrfMac = (secret: string, nonce: string, endsAt: string, request: string): string =>
  createHmac("sha256", secret).update(`oauth-csrf\n${nonce}\n${endsAt}\n${request}`).digest("base64url");

/**
 * A fresh form's CSRF pair: the cookie's nonce, and the form's token, which binds that nonce to this
 * authorization request (`request`, its carried fields) and to an end CSRF_SECONDS from now, under the
 * service's CSRF secret.
 */
export function newCsrf(
  context: Pick<AppContext, "csrfSecret" | "now">,
  secure: boolean,
  request: string,
): { token: string; cookie: string } {
  const nonce = randomBytes(16).toString("base64url");
  const endsAt = (context.now() + CSRF_SECONDS * 1000).toString(36);
  const token = `${endsAt}.${csrfMac(context.csrfSecret, nonce, endsAt, request)}`;
  const cookie = `${CSRF_COOKIE}=${nonce}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=${CSRF_SECONDS}${secure ? "; Secure" : ""}`;
  return { token, cookie };
}

/** Whether a consent POST carries, before its end, the token made for its own cookie and its own request. */
export function csrfHolds(
  context: Pick<AppContext, "csrfSecret" | "now">,
  cookieHeader: string | null,
  token: string | undefined,
  request: string,
): boolean {
  const nonce = new RegExp(`(?:^|;\\s*)${CSRF_COOKIE}=([A-Za-z0-9_-]{10,64})`).exec(cookieHeader ?? "")?.[1];
  const [endsAt = "", mac = ""] = (token ?? "").split(".");
  if (!nonce || !/^[0-9a-z]{1,12}$/.test(endsAt) || Number.parseInt(endsAt, 36) <= context.now())
    return false;
  const expected = Buffer.from(csrfMac(context.csrfSecret, nonce, endsAt, request));
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

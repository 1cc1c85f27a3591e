import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { FastResponse } from "srvx";
import type { AppContext } from "../context.ts";
import { copyWith } from "../copy-with.ts";
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

// Not per request: joined once, at load.
const ERROR_HEADERS: Record<string, string> = { ...NO_STORE, ...OPEN_CORS };

/** An OAuth error in the RFCs' JSON form. */
export const oauthError = (status: number, error: string, description: string): Response =>
  json(status, { error, error_description: description }, ERROR_HEADERS);

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
    headers: copyWith(copyWith(headers, NO_STORE), {
      "content-type": "text/html; charset=utf-8",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      // form-action covers the redirect that follows the form (Chromium checks it): the client's URI.
      "content-security-policy": `default-src 'none'; style-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    }),
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
  return new FastResponse(null, { status: 302, headers: copyWith(NO_STORE, { location: url.href }) });
}

const CSRF_COOKIE = "picks_oauth_csrf";

/** A fresh form's CSRF pair: the cookie's nonce and the form's token, its HMAC under the service's secret. */
export function newCsrf(
  context: Pick<AppContext, "ipSecret">,
  secure: boolean,
): { token: string; cookie: string } {
  const nonce = randomBytes(16).toString("base64url");
  const token = createHmac("sha256", context.ipSecret).update(`oauth-csrf:${nonce}`).digest("base64url");
  const cookie = `${CSRF_COOKIE}=${nonce}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=900${secure ? "; Secure" : ""}`;
  return { token, cookie };
}

/** Whether a consent POST carries the token made for its own cookie. */
export function csrfHolds(
  context: Pick<AppContext, "ipSecret">,
  cookieHeader: string | null,
  token: string | undefined,
): boolean {
  const nonce = new RegExp(`(?:^|;\\s*)${CSRF_COOKIE}=([A-Za-z0-9_-]{10,64})`).exec(cookieHeader ?? "")?.[1];
  if (!nonce || !token) return false;
  const expected = Buffer.from(
    createHmac("sha256", context.ipSecret).update(`oauth-csrf:${nonce}`).digest("base64url"),
  );
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

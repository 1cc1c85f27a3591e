import { redirectMatches } from "./oauth-redirect.ts";

// The checks of an authorization request (RFC 6749 §4.1.1 with PKCE, RFC 7636, and resource
// indicators, RFC 8707). Every refusal is shown to the person on the page, never redirected, even once
// the client and its redirect URI are known good: anyone can register a redirect URI (or publish a
// metadata document naming one), so an error sent there without the person acting would make this
// server an open redirector (RFC 9700 §4.11.2). The only redirects are after the person's own Allow
// or Deny on the consent page.

/** The scope a token of this server carries: the MCP tools over the published picks. */
export const MCP_SCOPE = "mcp";
export const SCOPES_SUPPORTED = [MCP_SCOPE] as const;

/** What the server knows of a registered client. */
export interface KnownClient {
  client_id: string;
  client_name: string;
  redirect_uris: readonly string[];
}

export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  resource: string;
  scope: string;
}

/** A request to show the consent page for, or the error to show instead (RFC 6749 §4.1.2.1's codes). */
export type AuthorizeCheck =
  | { ok: true; request: AuthorizeRequest }
  | { ok: false; error: string; description: string };

/** A PKCE code challenge: the base64url SHA-256 of a verifier, 43 characters (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_STATE = 512;

/**
 * Checks an authorization request's parameters against its client and this server's resource.
 *
 * @example checkAuthorize({ client_id: "c1", ... }, client, "https://picks.example.org/mcp").ok // true
 */
export function checkAuthorize(
  params: ReadonlyMap<string, readonly string[]>,
  client: KnownClient | undefined,
  resource: string,
): AuthorizeCheck {
  const one = (name: string): string | undefined | null => {
    const values = params.get(name) ?? [];
    if (values.length > 1) return null;
    return values[0];
  };
  const refuse = (error: string, description: string): AuthorizeCheck => ({ ok: false, error, description });
  const clientId = one("client_id");
  if (!clientId) return refuse("invalid_request", "client_id is missing or repeated");
  if (!client) return refuse("invalid_client", "this client is not registered here");
  const redirectUri = one("redirect_uri");
  if (redirectUri === null) return refuse("invalid_request", "redirect_uri is repeated");
  // Without redirect_uri, the client's only one is meant (RFC 6749 §3.1.2.3); with several, it must say.
  const target = redirectUri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  if (target === undefined) return refuse("invalid_request", "redirect_uri is missing");
  if (!redirectMatches(client.redirect_uris, target)) {
    return refuse("invalid_request", "redirect_uri is not one this client registered");
  }

  // An empty state is no state: nothing to send back.
  const given = one("state");
  const state = given === "" ? undefined : given;
  if (state === null) return refuse("invalid_request", "state is repeated");
  if (state !== undefined && state.length > MAX_STATE)
    return refuse("invalid_request", `state is longer than ${MAX_STATE} characters`);
  for (const name of ["response_type", "code_challenge", "code_challenge_method", "resource", "scope"]) {
    if (one(name) === null) return refuse("invalid_request", `${name} is repeated`);
  }
  if (one("response_type") !== "code")
    return refuse("unsupported_response_type", "only response_type=code is supported");
  const challenge = one("code_challenge");
  if (!challenge)
    return refuse("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256");
  if (one("code_challenge_method") !== "S256") {
    return refuse("invalid_request", "code_challenge_method must be S256 (plain is not accepted)");
  }
  if (!S256_CHALLENGE.test(challenge))
    return refuse("invalid_request", "code_challenge is not a base64url SHA-256");
  const asked = one("resource");
  if (asked !== undefined && asked !== resource) {
    return refuse("invalid_target", `this server issues tokens for ${resource} only`);
  }
  const scope = one("scope");
  const scopes = (scope ?? MCP_SCOPE).split(" ").filter(Boolean);
  if (scopes.length === 0 || scopes.some((name) => !(SCOPES_SUPPORTED as readonly string[]).includes(name))) {
    return refuse("invalid_scope", `the scopes offered are: ${SCOPES_SUPPORTED.join(" ")}`);
  }
  return {
    ok: true,
    request: {
      clientId,
      redirectUri: target,
      codeChallenge: challenge,
      state: state ?? null,
      resource,
      scope: [...new Set(scopes)].join(" "),
    },
  };
}

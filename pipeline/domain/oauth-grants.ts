// The rules of the token endpoint's two grants (RFC 6749 §4.1.3 and §6, with PKCE, RFC 7636, and
// resource indicators, RFC 8707): what the store holds of a code or a refresh token goes in, a
// verdict comes out. The caller reads everything first, asks, then writes what the verdict says; the
// clock is an argument. A refusal that names `revokeGrant` is a replay (RFC 9700 §4.2, §4.14): the
// grant it names ends with it.

/** How long each credential lives. */
export const CODE_SECONDS = 60;
export const ACCESS_SECONDS = 3600;
export const REFRESH_SECONDS = 30 * 86_400;
/** A grant, and every refresh token of it, ends this long after the person approved it. */
export const GRANT_SECONDS = 90 * 86_400;
/**
 * A client that sends a refresh token again this soon after its first use, before it could have read
 * the answer (a retry after a lost connection, or two requests at once), gets tokens again instead of
 * losing its grant, as the OAuth 2.1 draft (§4.3.1) allows. Later, the second use is a replay.
 */
export const REFRESH_RETRY_SECONDS = 10;

/** A code for an approved authorization request, bound to all of it. */
export interface CodeRecord {
  client_id: string;
  redirect_uri: string;
  challenge: string;
  resource: string;
  scope: string;
  key_hash: string;
  expires_at: number;
}

/** One person's approval of one client with one API key. */
export interface GrantRecord {
  client_id: string;
  key_hash: string;
  resource: string;
  scope: string;
  created_at: number;
}

/** An access or refresh token of a grant. */
export interface TokenRecord {
  grant_id: string;
  client_id: string;
  key_hash: string;
  resource: string;
  scope: string;
  expires_at: number;
}

/**
 * The mark a refresh token leaves once used: its grant, and (since the retry grace) who used it and
 * when. A mark without them, a bare grant id, is one written before: it allows no retry.
 */
export type SpentMark = string | { grant_id: string; client_id: string; spent_at: number };

/** What has become of the API key a grant acts as. */
export type KeyStanding = "active" | "revoked" | "unknown";

export interface GrantRefusal {
  ok: false;
  error: "invalid_grant" | "invalid_target";
  description: string;
  /** A replay: this grant ends, and every token it gave with it. */
  revokeGrant?: string;
}

const refuse = (description: string, revokeGrant?: string): GrantRefusal =>
  revokeGrant === undefined
    ? { ok: false, error: "invalid_grant", description }
    : { ok: false, error: "invalid_grant", description, revokeGrant };

const KEY_GONE =
  "the API key this grant acts as was revoked or replaced; the person must approve the client again";

/** When a grant ends: its approval plus GRANT_SECONDS. */
export const grantEndsAt = (grant: GrantRecord): number => grant.created_at + GRANT_SECONDS * 1000;

/** A new refresh token's end: REFRESH_SECONDS from now, never past its grant's. */
export const refreshEndsAt = (grant: GrantRecord, now: number): number =>
  Math.min(now + REFRESH_SECONDS * 1000, grantEndsAt(grant));

/**
 * Whether a code may be exchanged for tokens. `usedBy` is the grant a first exchange made (null while
 * unused); `verifies` says whether the request's code_verifier is the one of a challenge.
 *
 * @example checkCodeExchange({ code: null, usedBy: null, key: "unknown" }, input, now).ok // false
 */
export function checkCodeExchange(
  state: { code: CodeRecord | null; usedBy: string | null; key: KeyStanding },
  input: {
    clientId: string;
    redirectUri: string;
    resource: string | undefined;
    verifies: (challenge: string) => boolean;
  },
  now: number,
): { ok: true; code: CodeRecord } | GrantRefusal {
  const { code } = state;
  if (!code || code.expires_at <= now) return refuse("the authorization code is unknown or expired");
  if (code.client_id !== input.clientId) return refuse("the code was issued to another client");
  if (code.redirect_uri !== input.redirectUri)
    return refuse("redirect_uri differs from the authorization request's");
  if (!input.verifies(code.challenge)) return refuse("code_verifier does not match the code_challenge");
  if (input.resource !== undefined && input.resource !== code.resource) {
    return { ok: false, error: "invalid_target", description: `the code was issued for ${code.resource}` };
  }
  // Checked after the bindings: only a request that holds the verifier can end what the code gave.
  if (state.usedBy !== null) {
    return refuse("the authorization code was already used; the tokens it gave are revoked", state.usedBy);
  }
  if (state.key !== "active") return refuse(KEY_GONE);
  return { ok: true, code };
}

/**
 * Whether a refresh token may be exchanged for new tokens, and whether this is its first use
 * (`retry: false`: the caller marks it spent) or a retry within the grace (`retry: true`).
 *
 * @example checkRefresh({ token: null, spent: null, grant: null, grantRevoked: false, key: "unknown" }, input, now).ok // false
 */
export function checkRefresh(
  state: {
    token: TokenRecord | null;
    spent: SpentMark | null;
    /** The grant of the token, or of its mark. */
    grant: GrantRecord | null;
    grantRevoked: boolean;
    key: KeyStanding;
  },
  input: { clientId: string; resource: string | undefined },
  now: number,
): { ok: true; grantId: string; grant: GrantRecord; retry: boolean } | GrantRefusal {
  const { token, spent } = state;
  const grantId = token?.grant_id ?? (typeof spent === "string" ? spent : spent?.grant_id);
  if (grantId === undefined) return refuse("the refresh token is unknown or expired");
  if (token) {
    if (token.expires_at <= now) return refuse("the refresh token expired");
    if (token.client_id !== input.clientId) return refuse("the refresh token was issued to another client");
  }
  let retry = false;
  if (spent !== null) {
    retry =
      typeof spent !== "string" &&
      spent.client_id === input.clientId &&
      now - spent.spent_at < REFRESH_RETRY_SECONDS * 1000;
    // Rotated at each use: a spent token coming back later, or from elsewhere, means it leaked.
    if (!retry) return refuse("the refresh token was already used; the grant is revoked", grantId);
  }
  const { grant } = state;
  if (!grant || state.grantRevoked) return refuse("the grant was revoked or has ended");
  if (grantEndsAt(grant) <= now) return refuse("the grant ended 90 days after it was approved");
  if (input.resource !== undefined && input.resource !== grant.resource) {
    return { ok: false, error: "invalid_target", description: `the grant is for ${grant.resource}` };
  }
  if (state.key !== "active") return refuse(KEY_GONE);
  return { ok: true, grantId, grant, retry };
}

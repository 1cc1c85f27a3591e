import { LRUCache } from "lru-cache";
import type { KeyRecord, KeyService } from "../access/key-service.ts";
import { copyWith } from "../copy-with.ts";
import type { Store } from "../store/types.ts";
import { hashSecret, isSecretOf, newSecret, verifierMatches } from "./secrets.ts";

// The grants of the authorization server, in the state store: clients, codes, grants and tokens,
// every secret kept as its hash. A grant is one person's approval of one client with one API key;
// every token it gives acts as that key (its tier, its quota) for this server's /mcp only.

export const CODE_SECONDS = 60;
export const ACCESS_SECONDS = 3600;
export const REFRESH_SECONDS = 30 * 86_400;
/** A grant, and each refresh token of it, ends this long after the person approved it. */
export const GRANT_SECONDS = 90 * 86_400;
/** A registered client not used for this long is forgotten (registration is open to anyone). */
export const CLIENT_SECONDS = 90 * 86_400;
// As with key records, an access token's record is not read again from the store for this long: a
// revocation made by another process takes effect within it, one made in this process at once.
const TOKEN_CACHE_MS = 5_000;
const TOKEN_CACHE_SIZE = 10_000;

export interface OAuthClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  client_id_issued_at: number;
}

interface CodeRecord {
  client_id: string;
  redirect_uri: string;
  challenge: string;
  resource: string;
  scope: string;
  key_hash: string;
  expires_at: number;
}

interface GrantRecord {
  client_id: string;
  key_hash: string;
  resource: string;
  scope: string;
  created_at: number;
}

interface TokenRecord {
  grant_id: string;
  client_id: string;
  key_hash: string;
  resource: string;
  scope: string;
  expires_at: number;
}

export interface TokenSet {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** An OAuth error answer's two fields (RFC 6749 §5.2). */
export interface OAuthFailure {
  error: string;
  error_description: string;
}

const key = {
  // Ids hold upper-case letters, which store keys may not: they are keyed by their hash, as secrets are.
  client: (id: string) => `oauth:client:${hashSecret(id)}`,
  code: (hash: string) => `oauth:code:${hash}`,
  codeGrant: (hash: string) => `oauth:code-grant:${hash}`,
  grant: (id: string) => `oauth:grant:${hashSecret(id)}`,
  access: (hash: string) => `oauth:access:${hash}`,
  refresh: (hash: string) => `oauth:refresh:${hash}`,
  refreshSpent: (hash: string) => `oauth:refresh-spent:${hash}`,
  // Its own key, written and never undone: a grant record is never rewritten, so no write of one can
  // bring a revoked grant back (a refresh racing a replay's revocation).
  revoked: (id: string) => `oauth:grant-revoked:${hashSecret(id)}`,
};

const failure = (error: string, description: string): OAuthFailure => ({
  error,
  error_description: description,
});

export interface Grants {
  registerClient(client: { client_name: string; redirect_uris: string[] }): Promise<OAuthClient>;
  client(clientId: string): Promise<OAuthClient | null>;
  /** A code for an approved authorization request, bound to all of it; lives 60 s, used once. */
  issueCode(request: Omit<CodeRecord, "expires_at">): Promise<string>;
  exchangeCode(input: {
    code: string;
    clientId: string;
    redirectUri: string;
    verifier: string;
    resource: string | undefined;
  }): Promise<TokenSet | OAuthFailure>;
  refresh(input: {
    refreshToken: string;
    clientId: string;
    resource: string | undefined;
  }): Promise<TokenSet | OAuthFailure>;
  /** RFC 7009: ends a token; a refresh token ends its whole grant. Unknown tokens are no error. */
  revoke(token: string): Promise<void>;
  /** The key an access token acts as, for `resource`; why not otherwise. */
  authenticate(
    token: string,
    resource: string,
  ): Promise<{ ok: true; record: KeyRecord } | { ok: false; description: string }>;
}

export function createGrants(options: { store: Store; keys: KeyService; now?: () => number }): Grants {
  const { store, keys } = options;
  const now = options.now ?? Date.now;
  const ttlClock = { ttlResolution: 0, perf: { now } };
  // Token records by the token's hash; only tokens found in the store enter.
  const tokens = new LRUCache<string, TokenRecord>({ max: TOKEN_CACHE_SIZE, ...ttlClock });
  // Grants revoked here, for as long as a token of theirs may still sit in `tokens`.
  const revokedHere = new LRUCache<string, true>({ max: TOKEN_CACHE_SIZE, ttl: TOKEN_CACHE_MS, ...ttlClock });

  const revokeGrant = async (grantId: string) => {
    revokedHere.set(grantId, true);
    await store.setItem(key.revoked(grantId), now(), { ttlSeconds: GRANT_SECONDS });
  };
  const isRevoked = async (grantId: string) =>
    revokedHere.get(grantId) === true || (await store.getItem(key.revoked(grantId))) !== null;

  const tokensFor = async (grantId: string, grant: GrantRecord): Promise<TokenSet> => {
    const access = newSecret("access");
    const refresh = newSecret("refresh");
    const base = {
      grant_id: grantId,
      client_id: grant.client_id,
      key_hash: grant.key_hash,
      resource: grant.resource,
      scope: grant.scope,
    };
    await store.setItem(
      key.access(hashSecret(access)),
      copyWith(base, { expires_at: now() + ACCESS_SECONDS * 1000 }),
      { ttlSeconds: ACCESS_SECONDS },
    );
    await store.setItem(
      key.refresh(hashSecret(refresh)),
      copyWith(base, { expires_at: now() + REFRESH_SECONDS * 1000 }),
      { ttlSeconds: REFRESH_SECONDS },
    );
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: ACCESS_SECONDS,
      refresh_token: refresh,
      scope: grant.scope,
    };
  };

  return {
    async registerClient({ client_name, redirect_uris }) {
      const client: OAuthClient = {
        client_id: newSecret("client"),
        client_name,
        redirect_uris,
        client_id_issued_at: Math.floor(now() / 1000),
      };
      await store.setItem(key.client(client.client_id), client, { ttlSeconds: CLIENT_SECONDS });
      return client;
    },
    async client(clientId) {
      if (!isSecretOf("client", clientId)) return null;
      return store.getItem<OAuthClient>(key.client(clientId));
    },
    async issueCode(request) {
      const code = newSecret("code");
      const record: CodeRecord = copyWith(request, { expires_at: now() + CODE_SECONDS * 1000 });
      await store.setItem(key.code(hashSecret(code)), record, { ttlSeconds: CODE_SECONDS + 5 });
      return code;
    },
    async exchangeCode(input) {
      if (!isSecretOf("code", input.code))
        return failure("invalid_grant", "not an authorization code of this server");
      const hash = hashSecret(input.code);
      const code = await store.getItem<CodeRecord>(key.code(hash));
      if (!code || code.expires_at <= now())
        return failure("invalid_grant", "the authorization code is unknown or expired");
      if (code.client_id !== input.clientId)
        return failure("invalid_grant", "the code was issued to another client");
      if (code.redirect_uri !== input.redirectUri)
        return failure("invalid_grant", "redirect_uri differs from the authorization request's");
      if (!verifierMatches(input.verifier, code.challenge))
        return failure("invalid_grant", "code_verifier does not match the code_challenge");
      if (input.resource !== undefined && input.resource !== code.resource) {
        return failure("invalid_target", `the code was issued for ${code.resource}`);
      }
      // Used once: the first exchange takes the code; a second one is a replay (RFC 9700 §4.2), and
      // the tokens the first one gave are revoked with their grant.
      const grantId = newSecret("grant");
      if (!(await store.setIfAbsent(key.codeGrant(hash), grantId, { ttlSeconds: CODE_SECONDS * 10 }))) {
        const first = await store.getItem<string>(key.codeGrant(hash));
        if (first) await revokeGrant(first);
        return failure(
          "invalid_grant",
          "the authorization code was already used; the tokens it gave are revoked",
        );
      }
      const grant: GrantRecord = {
        client_id: code.client_id,
        key_hash: code.key_hash,
        resource: code.resource,
        scope: code.scope,
        created_at: now(),
      };
      await store.setItem(key.grant(grantId), grant, { ttlSeconds: GRANT_SECONDS });
      // A client in use is kept: its registration lives on from its last grant.
      const client = await store.getItem<OAuthClient>(key.client(code.client_id));
      if (client) await store.setItem(key.client(code.client_id), client, { ttlSeconds: CLIENT_SECONDS });
      return tokensFor(grantId, grant);
    },
    async refresh(input) {
      if (!isSecretOf("refresh", input.refreshToken))
        return failure("invalid_grant", "not a refresh token of this server");
      const hash = hashSecret(input.refreshToken);
      const token = await store.getItem<TokenRecord>(key.refresh(hash));
      if (!token) {
        // A spent token's record is gone; its mark says which grant it belonged to, which now ends.
        const spentOf = await store.getItem<string>(key.refreshSpent(hash));
        if (spentOf === null) return failure("invalid_grant", "the refresh token is unknown or expired");
        await revokeGrant(spentOf);
        return failure("invalid_grant", "the refresh token was already used; the grant is revoked");
      }
      if (token.expires_at <= now()) return failure("invalid_grant", "the refresh token expired");
      if (token.client_id !== input.clientId)
        return failure("invalid_grant", "the refresh token was issued to another client");
      if (input.resource !== undefined && input.resource !== token.resource) {
        return failure("invalid_target", `the grant is for ${token.resource}`);
      }
      // Rotated at each use: a spent refresh token coming back means it leaked, so the grant ends.
      if (
        !(await store.setIfAbsent(key.refreshSpent(hash), token.grant_id, { ttlSeconds: REFRESH_SECONDS }))
      ) {
        await revokeGrant(token.grant_id);
        return failure("invalid_grant", "the refresh token was already used; the grant is revoked");
      }
      await store.removeItem(key.refresh(hash));
      const grant = await store.getItem<GrantRecord>(key.grant(token.grant_id));
      if (!grant || (await isRevoked(token.grant_id))) {
        return failure("invalid_grant", "the grant was revoked or has ended");
      }
      return tokensFor(token.grant_id, grant);
    },
    async revoke(token) {
      if (isSecretOf("access", token)) {
        const hash = hashSecret(token);
        await store.removeItem(key.access(hash));
        tokens.delete(hash);
      } else if (isSecretOf("refresh", token)) {
        const record = await store.getItem<TokenRecord>(key.refresh(hashSecret(token)));
        if (record) await revokeGrant(record.grant_id);
      }
    },
    async authenticate(token, resource) {
      if (!isSecretOf("access", token))
        return { ok: false, description: "not an access token of this server" };
      const hash = hashSecret(token);
      const at = now();
      let record = tokens.get(hash);
      if (!record) {
        const stored = await store.getItem<TokenRecord>(key.access(hash));
        const grant = stored ? await store.getItem<GrantRecord>(key.grant(stored.grant_id)) : null;
        if (!stored || !grant || (await isRevoked(stored.grant_id))) {
          return { ok: false, description: "the access token is unknown, expired or revoked" };
        }
        record = stored;
        if (record.expires_at > at) {
          tokens.set(hash, record, { ttl: Math.min(TOKEN_CACHE_MS, record.expires_at - at) });
        }
      }
      if (record.expires_at <= at) return { ok: false, description: "the access token expired" };
      if (revokedHere.get(record.grant_id) === true) {
        return { ok: false, description: "the access token's grant was revoked" };
      }
      // Its audience: a token of this server is for its /mcp only (RFC 8707).
      if (record.resource !== resource)
        return { ok: false, description: `the access token is for ${record.resource}` };
      const owner = await keys.authenticateHash(record.key_hash);
      if (!owner.ok) return { ok: false, description: `the API key this token acts as is ${owner.why}` };
      return { ok: true, record: owner.record };
    },
  };
}

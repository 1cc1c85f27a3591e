import { LRUCache } from "lru-cache";
import {
  ACCESS_SECONDS,
  CODE_SECONDS,
  type CodeRecord,
  checkCodeExchange,
  checkRefresh,
  GRANT_SECONDS,
  type GrantRecord,
  type GrantRefusal,
  type KeyStanding,
  REFRESH_SECONDS,
  refreshEndsAt,
  type SpentMark,
  type TokenRecord,
} from "../../pipeline/domain/oauth-grants.ts";
import type { KeyRecord, KeyService } from "../access/key-service.ts";
import type { Store } from "../store/types.ts";
import { hashSecret, isSecretOf, newSecret, verifierMatches } from "./secrets.ts";

// The grants of the authorization server, in the state store: clients, codes, grants and tokens,
// every secret kept as its hash. A grant is one person's approval of one client with one API key;
// every token it gives acts as that key (its tier, its quota) for this server's /mcp only. The token
// endpoint's rules are pure, in pipeline/domain/oauth-grants.ts: each grant here reads what the store
// holds, asks those rules, then writes what they decided.

/** A registered client not used for this long is forgotten (registration is open to anyone). */
const CLIENT_SECONDS = 90 * 86_400;
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

  /** What became of the key a grant acts as; the key service's own check, so a revocation shows at once here. */
  const standingOf = async (keyHash: string): Promise<KeyStanding> => {
    const owner = await keys.authenticateHash(keyHash);
    return owner.ok ? "active" : owner.why === "revoked" ? "revoked" : "unknown";
  };
  const refused = async (verdict: GrantRefusal): Promise<OAuthFailure> => {
    if (verdict.revokeGrant !== undefined) await revokeGrant(verdict.revokeGrant);
    return failure(verdict.error, verdict.description);
  };
  const keepClient = async (clientId: string) => {
    const client = await store.getItem<OAuthClient>(key.client(clientId));
    if (client) await store.setItem(key.client(clientId), client, { ttlSeconds: CLIENT_SECONDS });
  };

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
      { ...base, expires_at: now() + ACCESS_SECONDS * 1000 },
      { ttlSeconds: ACCESS_SECONDS },
    );
    // Never past the grant's end: a refresh token of an ended grant is simply unknown.
    const refreshEnds = refreshEndsAt(grant, now());
    await store.setItem(
      key.refresh(hashSecret(refresh)),
      { ...base, expires_at: refreshEnds },
      {
        ttlSeconds: Math.max(1, Math.ceil((refreshEnds - now()) / 1000)),
      },
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
      const record: CodeRecord = { ...request, expires_at: now() + CODE_SECONDS * 1000 };
      await store.setItem(key.code(hashSecret(code)), record, { ttlSeconds: CODE_SECONDS + 5 });
      return code;
    },
    async exchangeCode(input) {
      if (!isSecretOf("code", input.code))
        return failure("invalid_grant", "not an authorization code of this server");
      const hash = hashSecret(input.code);
      const code = await store.getItem<CodeRecord>(key.code(hash));
      const usedBy = code ? await store.getItem<string>(key.codeGrant(hash)) : null;
      const standing = code ? await standingOf(code.key_hash) : "unknown";
      const rule = {
        clientId: input.clientId,
        redirectUri: input.redirectUri,
        resource: input.resource,
        verifies: (challenge: string) => verifierMatches(input.verifier, challenge),
      };
      let verdict = checkCodeExchange({ code, usedBy, key: standing }, rule, now());
      // Used once: the first exchange takes the code; one that comes after is judged again as the
      // replay it is (RFC 9700 §4.2), and the tokens the first one gave are revoked with their grant.
      const grantId = newSecret("grant");
      if (
        verdict.ok &&
        !(await store.setIfAbsent(key.codeGrant(hash), grantId, { ttlSeconds: CODE_SECONDS * 10 }))
      ) {
        const first = (await store.getItem<string>(key.codeGrant(hash))) ?? grantId;
        verdict = checkCodeExchange({ code, usedBy: first, key: standing }, rule, now());
      }
      if (!verdict.ok) return refused(verdict);
      const grant: GrantRecord = {
        client_id: verdict.code.client_id,
        key_hash: verdict.code.key_hash,
        resource: verdict.code.resource,
        scope: verdict.code.scope,
        created_at: now(),
      };
      await store.setItem(key.grant(grantId), grant, { ttlSeconds: GRANT_SECONDS });
      await keepClient(grant.client_id);
      return tokensFor(grantId, grant);
    },
    async refresh(input) {
      if (!isSecretOf("refresh", input.refreshToken))
        return failure("invalid_grant", "not a refresh token of this server");
      const hash = hashSecret(input.refreshToken);
      const token = await store.getItem<TokenRecord>(key.refresh(hash));
      const spent = await store.getItem<SpentMark>(key.refreshSpent(hash));
      const grantId = token?.grant_id ?? (typeof spent === "string" ? spent : spent?.grant_id);
      const grant = grantId ? await store.getItem<GrantRecord>(key.grant(grantId)) : null;
      const grantRevoked = grantId ? await isRevoked(grantId) : false;
      const standing = grant ? await standingOf(grant.key_hash) : "unknown";
      let verdict = checkRefresh({ token, spent, grant, grantRevoked, key: standing }, input, now());
      if (verdict.ok && !verdict.retry) {
        // Rotated at each use: the first use marks the token spent; a use that lost the race to mark it
        // is judged again against the mark, as a retry within the grace or as a replay.
        const mark: SpentMark = { grant_id: verdict.grantId, client_id: input.clientId, spent_at: now() };
        if (await store.setIfAbsent(key.refreshSpent(hash), mark, { ttlSeconds: REFRESH_SECONDS })) {
          await store.removeItem(key.refresh(hash));
        } else {
          const first = await store.getItem<SpentMark>(key.refreshSpent(hash));
          const again = { token, spent: first ?? mark, grant, grantRevoked, key: standing };
          verdict = checkRefresh(again, input, now());
        }
      }
      if (!verdict.ok) return refused(verdict);
      // A client in use is kept: its registration lives on from its last token.
      await keepClient(verdict.grant.client_id);
      return tokensFor(verdict.grantId, verdict.grant);
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

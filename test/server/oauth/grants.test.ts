import { createHash, randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ACCESS_SECONDS,
  CODE_SECONDS,
  GRANT_SECONDS,
  REFRESH_RETRY_SECONDS,
  REFRESH_SECONDS,
} from "../../../pipeline/domain/oauth-grants.ts";
import { createKeyService, type KeyService } from "../../../server/access/key-service.ts";
import { createGrants, type Grants, type TokenSet } from "../../../server/oauth/grants.ts";
import { hashSecret } from "../../../server/oauth/secrets.ts";
import { type OpenedStore, useBackends } from "../store/backends.ts";

// The grants' rules on every store the service runs on (memory, SQLite, a real Redis), with the clock
// in the test's hands: codes, tokens, their expiry, rotation and revocation.

const RESOURCE = "https://picks.example.org/mcp";
const REDIRECT = "http://127.0.0.1/cb";

for (const backend of useBackends()) {
  describe.skipIf(backend.skip)(`grants on ${backend.kind}`, () => {
    let opened: OpenedStore;
    let clock: number;
    let keys: KeyService;
    let grants: Grants;
    let apiKey: string;
    let keyHash: string;
    beforeEach(async () => {
      opened = await backend.open();
      clock = Date.parse("2026-11-28T06:00:00Z");
      const now = () => clock;
      keys = createKeyService({ store: opened.store, now });
      grants = createGrants({ store: opened.store, keys, now });
      const issued = await keys.issue({ tier: "pro", email: "ops@example.org", label: "grants" });
      apiKey = issued.key;
      keyHash = issued.record.hash;
    });
    afterEach(() => opened.cleanup());

    async function code(clientId: string) {
      const verifier = randomBytes(32).toString("base64url");
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      const issued = await grants.issueCode({
        client_id: clientId,
        redirect_uri: REDIRECT,
        challenge,
        resource: RESOURCE,
        scope: "mcp",
        key_hash: keyHash,
      });
      return { code: issued, verifier };
    }

    async function tokens(): Promise<{ clientId: string; set: TokenSet }> {
      const client = await grants.registerClient({ client_name: "t", redirect_uris: [REDIRECT] });
      const { code: issued, verifier } = await code(client.client_id);
      const set = await grants.exchangeCode({
        code: issued,
        clientId: client.client_id,
        redirectUri: REDIRECT,
        verifier,
        resource: RESOURCE,
      });
      if ("error" in set) throw new Error(set.error_description);
      return { clientId: client.client_id, set };
    }

    it("stores no secret, only hashes", async () => {
      const { set, clientId } = await tokens();
      const keysStored = await opened.store.getKeys("oauth");
      const everything = JSON.stringify(
        await Promise.all(keysStored.map(async (name) => [name, await opened.store.getItem(name)])),
      );
      for (const secret of [set.access_token, set.refresh_token, apiKey])
        expect(everything).not.toContain(secret);
      expect(everything).toContain(hashSecret(set.access_token));
      expect(await grants.client(clientId)).toMatchObject({ client_id: clientId });
    });

    it("takes an access token as its key until it expires", async () => {
      const { set } = await tokens();
      expect(await grants.authenticate(set.access_token, RESOURCE)).toMatchObject({
        ok: true,
        record: { hash: keyHash },
      });
      expect(await grants.authenticate(set.access_token, "https://other.example/mcp")).toMatchObject({
        ok: false,
      });
      clock += ACCESS_SECONDS * 1000 + 1;
      expect(await grants.authenticate(set.access_token, RESOURCE)).toMatchObject({
        ok: false,
        description: expect.stringMatching(/expired|unknown/),
      });
    });

    it("lets a code live 60 s and be used once; a replay revokes what it gave", async () => {
      const client = await grants.registerClient({ client_name: "t", redirect_uris: [REDIRECT] });
      const late = await code(client.client_id);
      clock += CODE_SECONDS * 1000 + 1;
      const expired = await grants.exchangeCode({
        ...late,
        clientId: client.client_id,
        redirectUri: REDIRECT,
        resource: undefined,
      });
      expect(expired).toMatchObject({ error: "invalid_grant" });

      const fresh = await code(client.client_id);
      const input = { ...fresh, clientId: client.client_id, redirectUri: REDIRECT, resource: undefined };
      const first = await grants.exchangeCode(input);
      if ("error" in first) throw new Error(first.error_description);
      expect(await grants.exchangeCode(input)).toMatchObject({ error: "invalid_grant" });
      expect(await grants.authenticate(first.access_token, RESOURCE)).toMatchObject({ ok: false });
      expect(
        await grants.refresh({
          refreshToken: first.refresh_token,
          clientId: client.client_id,
          resource: undefined,
        }),
      ).toMatchObject({
        error: "invalid_grant",
      });
    });

    it("binds a code to its client, redirect, verifier and resource", async () => {
      const client = await grants.registerClient({ client_name: "t", redirect_uris: [REDIRECT] });
      const issued = await code(client.client_id);
      const base = { ...issued, clientId: client.client_id, redirectUri: REDIRECT, resource: undefined };
      expect(
        await grants.exchangeCode({ ...base, clientId: "rpc_someone_else_entirely_00000" }),
      ).toMatchObject({ error: "invalid_grant" });
      expect(await grants.exchangeCode({ ...base, redirectUri: "http://127.0.0.1/other" })).toMatchObject({
        error: "invalid_grant",
      });
      expect(
        await grants.exchangeCode({ ...base, verifier: randomBytes(32).toString("base64url") }),
      ).toMatchObject({ error: "invalid_grant" });
      expect(await grants.exchangeCode({ ...base, resource: "https://other.example/mcp" })).toMatchObject({
        error: "invalid_target",
      });
      // None of those used the code up.
      expect(await grants.exchangeCode(base)).toMatchObject({ token_type: "Bearer" });
    });

    it("rotates the refresh token, and ends the grant when a spent one comes back", async () => {
      const { set, clientId } = await tokens();
      const next = await grants.refresh({ refreshToken: set.refresh_token, clientId, resource: undefined });
      if ("error" in next) throw new Error(next.error_description);
      expect(next.refresh_token).not.toBe(set.refresh_token);
      expect(await grants.authenticate(next.access_token, RESOURCE)).toMatchObject({ ok: true });
      clock += REFRESH_RETRY_SECONDS * 1000;
      expect(
        await grants.refresh({ refreshToken: set.refresh_token, clientId, resource: undefined }),
      ).toMatchObject({
        error: "invalid_grant",
      });
      expect(await grants.authenticate(next.access_token, RESOURCE)).toMatchObject({ ok: false });
      expect(
        await grants.refresh({ refreshToken: next.refresh_token, clientId, resource: undefined }),
      ).toMatchObject({
        error: "invalid_grant",
      });
    });

    // A client's own retry (two requests at once, or one resent after a lost answer) keeps its grant
    // (OAuth 2.1 draft §4.3.1); once the grace is over, the spent token is a replay and ends it all.
    it("takes a client's concurrent retry of one refresh token, and ends the grant on a use after the grace", async () => {
      const { set, clientId } = await tokens();
      const use = () => grants.refresh({ refreshToken: set.refresh_token, clientId, resource: undefined });
      const both = await Promise.all([use(), use()]);
      const issued = both.map((answer) => {
        if ("error" in answer) throw new Error(answer.error_description);
        return answer;
      });
      clock += 2_000;
      const resent = await use();
      if ("error" in resent) throw new Error(resent.error_description);
      for (const answer of [...issued, resent])
        expect(await grants.authenticate(answer.access_token, RESOURCE)).toMatchObject({ ok: true });

      clock += REFRESH_RETRY_SECONDS * 1000;
      expect(await use()).toMatchObject({ error: "invalid_grant", error_description: /already used/ });
      for (const answer of [...issued, resent]) {
        expect(await grants.authenticate(answer.access_token, RESOURCE)).toMatchObject({ ok: false });
        expect(
          await grants.refresh({ refreshToken: answer.refresh_token, clientId, resource: undefined }),
        ).toMatchObject({ error: "invalid_grant" });
      }
    });

    it("ends the grant when another client sends a spent refresh token, even within the grace", async () => {
      const { set, clientId } = await tokens();
      const next = await grants.refresh({ refreshToken: set.refresh_token, clientId, resource: undefined });
      if ("error" in next) throw new Error(next.error_description);
      const other = await grants.registerClient({ client_name: "o", redirect_uris: [REDIRECT] });
      expect(
        await grants.refresh({
          refreshToken: set.refresh_token,
          clientId: other.client_id,
          resource: undefined,
        }),
      ).toMatchObject({ error: "invalid_grant" });
      expect(await grants.authenticate(next.access_token, RESOURCE)).toMatchObject({ ok: false });
    });

    it.each([
      "revoke",
      "rotate",
    ] as const)("answers invalid_grant to a refresh and to a code approved before, once the key is %sd", async (change) => {
      const { set, clientId } = await tokens();
      const approved = await code(clientId);
      await keys[change](apiKey);
      expect(
        await grants.refresh({ refreshToken: set.refresh_token, clientId, resource: undefined }),
      ).toEqual({
        error: "invalid_grant",
        error_description: expect.stringMatching(/API key .* revoked or replaced/),
      });
      expect(
        await grants.exchangeCode({ ...approved, clientId, redirectUri: REDIRECT, resource: undefined }),
      ).toEqual({ error: "invalid_grant", error_description: expect.stringMatching(/revoked or replaced/) });
    });

    it("ends every refresh token at its grant's end, 90 days after the approval", async () => {
      const { set, clientId } = await tokens();
      let refreshToken = set.refresh_token;
      // Refreshed every 29 days, as a client in use does: the last one still ends with the grant.
      for (let day = 29; day < 90; day += 29) {
        clock += 29 * 86_400_000;
        const next = await grants.refresh({ refreshToken, clientId, resource: undefined });
        if ("error" in next) throw new Error(`day ${day}: ${next.error_description}`);
        refreshToken = next.refresh_token;
      }
      clock = Date.parse("2026-11-28T06:00:00Z") + GRANT_SECONDS * 1000 + 1;
      expect(await grants.refresh({ refreshToken, clientId, resource: undefined })).toMatchObject({
        error: "invalid_grant",
      });
      expect(REFRESH_SECONDS).toBeLessThan(GRANT_SECONDS);
    });

    it("revokes an access token alone, or a refresh token's whole grant", async () => {
      const one = await tokens();
      await grants.revoke(one.set.access_token);
      expect(await grants.authenticate(one.set.access_token, RESOURCE)).toMatchObject({ ok: false });
      const two = await tokens();
      await grants.revoke(two.set.refresh_token);
      expect(await grants.authenticate(two.set.access_token, RESOURCE)).toMatchObject({ ok: false });
      await grants.revoke("not-a-token");
    });

    it("ends a token with its key, and with a rotated key", async () => {
      const { set } = await tokens();
      await keys.rotate(apiKey);
      expect(await grants.authenticate(set.access_token, RESOURCE)).toMatchObject({
        ok: false,
        description: expect.stringContaining("revoked"),
      });
    });
  });
}

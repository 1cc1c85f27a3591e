import { describe, expect, it } from "vitest";
import {
  type CodeRecord,
  checkCodeExchange,
  checkRefresh,
  GRANT_SECONDS,
  type GrantRecord,
  type KeyStanding,
  REFRESH_RETRY_SECONDS,
  REFRESH_SECONDS,
  refreshEndsAt,
  type SpentMark,
  type TokenRecord,
} from "../../../pipeline/domain/oauth-grants.ts";

const NOW = Date.parse("2026-11-28T06:00:00Z");
const RESOURCE = "https://picks.example.org/mcp";
const DAY = 86_400_000;

const CODE: CodeRecord = {
  client_id: "rpc_a",
  redirect_uri: "http://127.0.0.1/cb",
  challenge: "the-challenge",
  resource: RESOURCE,
  scope: "mcp",
  key_hash: "k",
  expires_at: NOW + 30_000,
};
const EXCHANGE = {
  clientId: "rpc_a",
  redirectUri: "http://127.0.0.1/cb",
  resource: undefined as string | undefined,
  verifies: (challenge: string) => challenge === "the-challenge",
};

describe("checkCodeExchange", () => {
  it("takes a code bound to the request, unused, of an active key", () => {
    expect(checkCodeExchange({ code: CODE, usedBy: null, key: "active" }, EXCHANGE, NOW)).toEqual({
      ok: true,
      code: CODE,
    });
  });

  it.each<[string, { code?: CodeRecord | null; usedBy?: string; key?: KeyStanding }, object, RegExp]>([
    ["an unknown code", { code: null }, {}, /unknown or expired/],
    ["an expired code", { code: { ...CODE, expires_at: NOW } }, {}, /unknown or expired/],
    ["another client", {}, { clientId: "rpc_b" }, /another client/],
    ["another redirect URI", {}, { redirectUri: "http://127.0.0.1/other" }, /redirect_uri differs/],
    ["a wrong verifier", {}, { verifies: () => false }, /code_verifier/],
    ["a key revoked since the approval", { key: "revoked" }, {}, /revoked or replaced/],
    ["a key gone from the store", { key: "unknown" }, {}, /revoked or replaced/],
  ])("refuses %s with invalid_grant, ending nothing", (_name, state, input, description) => {
    const verdict = checkCodeExchange(
      { code: CODE, usedBy: null, key: "active", ...state },
      { ...EXCHANGE, ...input },
      NOW,
    );
    expect(verdict).toEqual({
      ok: false,
      error: "invalid_grant",
      description: expect.stringMatching(description),
    });
  });

  it("answers another resource with invalid_target", () => {
    const verdict = checkCodeExchange(
      { code: CODE, usedBy: null, key: "active" },
      { ...EXCHANGE, resource: "https://other.example/mcp" },
      NOW,
    );
    expect(verdict).toMatchObject({ ok: false, error: "invalid_target" });
  });

  it("ends the first exchange's grant when a code comes back with its verifier", () => {
    const verdict = checkCodeExchange({ code: CODE, usedBy: "rpg_first", key: "active" }, EXCHANGE, NOW);
    expect(verdict).toMatchObject({ ok: false, error: "invalid_grant", revokeGrant: "rpg_first" });
  });

  it("ends nothing when a used code comes back without its verifier (it could be anyone's)", () => {
    const verdict = checkCodeExchange(
      { code: CODE, usedBy: "rpg_first", key: "active" },
      { ...EXCHANGE, verifies: () => false },
      NOW,
    );
    expect(verdict).not.toHaveProperty("revokeGrant");
  });
});

const GRANT: GrantRecord = {
  client_id: "rpc_a",
  key_hash: "k",
  resource: RESOURCE,
  scope: "mcp",
  created_at: NOW - 10 * DAY,
};
const TOKEN: TokenRecord = {
  grant_id: "rpg_1",
  client_id: "rpc_a",
  key_hash: "k",
  resource: RESOURCE,
  scope: "mcp",
  expires_at: NOW + DAY,
};
type RefreshState = Parameters<typeof checkRefresh>[0];
const FRESH: RefreshState = { token: TOKEN, spent: null, grant: GRANT, grantRevoked: false, key: "active" };
const REFRESH = { clientId: "rpc_a", resource: undefined as string | undefined };
const mark = (secondsAgo: number, clientId = "rpc_a"): SpentMark => ({
  grant_id: "rpg_1",
  client_id: clientId,
  spent_at: NOW - secondsAgo * 1000,
});

describe("checkRefresh", () => {
  it("rotates a live token of a live grant", () => {
    expect(checkRefresh(FRESH, REFRESH, NOW)).toEqual({
      ok: true,
      grantId: "rpg_1",
      grant: GRANT,
      retry: false,
    });
  });

  it.each<[string, Partial<RefreshState>, object, RegExp]>([
    ["an unknown token", { token: null }, {}, /unknown or expired/],
    ["an expired token", { token: { ...TOKEN, expires_at: NOW } }, {}, /expired/],
    ["another client's token", {}, { clientId: "rpc_b" }, /another client/],
    ["a revoked grant", { grantRevoked: true }, {}, /revoked or has ended/],
    ["a grant gone from the store", { grant: null }, {}, /revoked or has ended/],
    [
      "a grant past its 90 days",
      { grant: { ...GRANT, created_at: NOW - GRANT_SECONDS * 1000 } },
      {},
      /ended 90 days after/,
    ],
    ["a key revoked since the approval", { key: "revoked" }, {}, /revoked or replaced/],
    ["a key gone from the store", { key: "unknown" }, {}, /revoked or replaced/],
  ])("refuses %s with invalid_grant, ending nothing", (_name, state, input, description) => {
    const verdict = checkRefresh({ ...FRESH, ...state }, { ...REFRESH, ...input }, NOW);
    expect(verdict).toEqual({
      ok: false,
      error: "invalid_grant",
      description: expect.stringMatching(description),
    });
  });

  it("answers another resource with invalid_target", () => {
    const verdict = checkRefresh(FRESH, { ...REFRESH, resource: "https://other.example/mcp" }, NOW);
    expect(verdict).toMatchObject({ ok: false, error: "invalid_target" });
  });

  it.each<[string, TokenRecord | null, SpentMark]>([
    ["its token already taken off", null, mark(1)],
    ["its token not yet taken off", TOKEN, mark(1)],
    ["at the end of the grace", null, mark(REFRESH_RETRY_SECONDS - 0.001)],
  ])("takes the same client's retry within the grace, %s", (_name, token, spent) => {
    expect(checkRefresh({ ...FRESH, token, spent }, REFRESH, NOW)).toMatchObject({ ok: true, retry: true });
  });

  it.each<[string, SpentMark, object]>([
    ["after the grace", mark(REFRESH_RETRY_SECONDS), {}],
    ["from another client", mark(1), { clientId: "rpc_b" }],
    ["under a mark without its user (one written before the grace)", "rpg_1", {}],
  ])("ends the grant when a spent token comes back %s", (_name, spent, input) => {
    const verdict = checkRefresh({ ...FRESH, token: null, spent }, { ...REFRESH, ...input }, NOW);
    expect(verdict).toMatchObject({ ok: false, error: "invalid_grant", revokeGrant: "rpg_1" });
  });

  it("takes no retry of a revoked grant, nor of a revoked key", () => {
    expect(
      checkRefresh({ ...FRESH, token: null, spent: mark(1), grantRevoked: true }, REFRESH, NOW),
    ).toMatchObject({
      ok: false,
    });
    expect(
      checkRefresh({ ...FRESH, token: null, spent: mark(1), key: "revoked" }, REFRESH, NOW),
    ).toMatchObject({
      ok: false,
    });
  });
});

describe("refreshEndsAt", () => {
  it("gives a refresh token 30 days, never past its grant's end", () => {
    expect(refreshEndsAt(GRANT, NOW)).toBe(NOW + REFRESH_SECONDS * 1000);
    const old = { ...GRANT, created_at: NOW - 80 * DAY };
    expect(refreshEndsAt(old, NOW)).toBe(old.created_at + GRANT_SECONDS * 1000);
  });
});

import { describe, expect, it } from "vitest";
import { checkAuthorize, type KnownClient } from "../../../pipeline/domain/oauth-authorize.ts";

const RESOURCE = "https://picks.example.org/mcp";
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const CLIENT: KnownClient = {
  client_id: "client-1",
  client_name: "Test client",
  redirect_uris: ["https://app.example.org/cb", "http://127.0.0.1/cb"],
};

const params = (entries: Record<string, string | string[] | undefined>) =>
  new Map(
    Object.entries(entries)
      .filter((entry): entry is [string, string | string[]] => entry[1] !== undefined)
      .map(([name, value]) => [name, Array.isArray(value) ? value : [value]]),
  );

const good = {
  client_id: "client-1",
  redirect_uri: "https://app.example.org/cb",
  response_type: "code",
  code_challenge: CHALLENGE,
  code_challenge_method: "S256",
  state: "xyz",
  resource: RESOURCE,
};

describe("checkAuthorize", () => {
  it("accepts a complete request", () => {
    expect(checkAuthorize(params(good), CLIENT, RESOURCE)).toEqual({
      ok: true,
      request: {
        clientId: "client-1",
        redirectUri: "https://app.example.org/cb",
        codeChallenge: CHALLENGE,
        state: "xyz",
        resource: RESOURCE,
        scope: "mcp",
      },
    });
  });

  it("takes a loopback redirect on another port, and a missing resource as this one", () => {
    const checked = checkAuthorize(
      params({ ...good, redirect_uri: "http://127.0.0.1:40123/cb", resource: undefined }),
      CLIENT,
      RESOURCE,
    );
    expect(checked).toMatchObject({
      ok: true,
      request: { redirectUri: "http://127.0.0.1:40123/cb", resource: RESOURCE },
    });
  });

  // Never redirected: the request cannot be trusted to say where the person goes, and even a good
  // redirect URI is anyone's to register (RFC 9700 §4.11.2).
  it.each([
    ["no client_id", { client_id: undefined }, undefined, "invalid_request"],
    ["an unknown client", {}, "none", "invalid_client"],
    [
      "a redirect_uri not registered",
      { redirect_uri: "https://evil.example/cb" },
      undefined,
      "invalid_request",
    ],
    [
      "a redirect_uri repeated",
      { redirect_uri: ["https://app.example.org/cb", "https://evil.example/cb"] },
      undefined,
      "invalid_request",
    ],
    [
      "no redirect_uri where several are registered",
      { redirect_uri: undefined },
      undefined,
      "invalid_request",
    ],
  ])("shows %s on the page", (_name, change, client, error) => {
    const checked = checkAuthorize(
      params({ ...good, ...change }),
      client === "none" ? undefined : CLIENT,
      RESOURCE,
    );
    expect(checked).toEqual({ ok: false, error, description: expect.any(String) });
  });

  it.each([
    ["response_type token", { response_type: "token" }, "unsupported_response_type"],
    ["no PKCE", { code_challenge: undefined, code_challenge_method: undefined }, "invalid_request"],
    ["plain PKCE", { code_challenge_method: "plain" }, "invalid_request"],
    ["a challenge that is no SHA-256", { code_challenge: "short" }, "invalid_request"],
    ["another resource", { resource: "https://other.example/mcp" }, "invalid_target"],
    ["an unknown scope", { scope: "admin" }, "invalid_scope"],
    ["a repeated state", { state: ["a", "b"] }, "invalid_request"],
    ["a state longer than 512 characters", { state: "s".repeat(513) }, "invalid_request"],
  ])("shows %s on the page too, with nothing to redirect with", (_name, change, error) => {
    const checked = checkAuthorize(params({ ...good, ...change }), CLIENT, RESOURCE);
    expect(checked).toEqual({ ok: false, error, description: expect.any(String) });
  });
});

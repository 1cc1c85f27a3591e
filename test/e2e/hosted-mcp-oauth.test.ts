import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFRESH_RETRY_SECONDS } from "../../pipeline/domain/oauth-grants.ts";
import { runPicks } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";
import { callWithPythonSdk, mcpPython } from "../helpers/python-mcp.ts";
import { waitFor } from "../server/submissions/helpers.ts";
import { type PicksChild, serveArgs, startPicks } from "../server/submissions/picks-process.ts";
import { issuePaidKey } from "../server/webhooks/receiver.ts";

// The hosted MCP server as Claude.ai, ChatGPT or Claude Desktop reach it: the MCP SDK's own client
// with its OAuth support, headless. It is challenged, discovers the metadata, registers itself,
// sends the person to the consent page (here: the test reads the form and posts it with a key),
// exchanges the code and calls the tools as that key.

const REDIRECT = "http://127.0.0.1:53682/callback";

/** An OAuthClientProvider that keeps everything in memory and records where it sent the person. */
function memoryProvider(): OAuthClientProvider & { authorizationUrl?: URL } {
  let client: OAuthClientInformationMixed | undefined;
  let tokens: OAuthTokens | undefined;
  let verifier = "";
  const provider: OAuthClientProvider & { authorizationUrl?: URL } = {
    get redirectUrl() {
      return REDIRECT;
    },
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: "Headless test agent",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    state: () => "state-from-the-client",
    clientInformation: () => client,
    saveClientInformation: (info) => {
      client = info;
    },
    tokens: () => tokens,
    saveTokens: (saved) => {
      tokens = saved;
    },
    redirectToAuthorization: (url) => {
      provider.authorizationUrl = url;
    },
    saveCodeVerifier: (saved) => {
      verifier = saved;
    },
    codeVerifier: () => verifier,
  };
  return provider;
}

/** What a person does on the consent page: reads the form, pastes the key, allows. */
async function consent(authorizationUrl: URL, apiKey: string, decision = "approve") {
  const page = await fetch(authorizationUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)) {
    form.set(name as string, (value as string).replaceAll("&amp;", "&").replaceAll("&quot;", '"'));
  }
  form.set("api_key", apiKey);
  form.set("decision", decision);
  const answer = await fetch(new URL("/oauth/authorize", authorizationUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: form,
    redirect: "manual",
  });
  return { answer, location: new URL(answer.headers.get("location") ?? "about:blank") };
}

let server: PicksChild;
let env: Record<string, string>;
let key: string;
/** An https server on loopback with a certificate made for this run, serving client metadata documents. */
let documents: { origin: string; serve(path: string, body: string): void; close(): Promise<void> };
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "picks-oauth-"));
  documents = await startDocumentServer(dir);
  const site = await publishSampleDays();
  env = {
    STATE_STORE: "sqlite",
    STATE_DIR: dir,
    OAUTH_REGISTER_RATE_LIMIT: "40",
    // The metadata documents are served on loopback, over https with this run's certificate.
    OAUTH_ALLOW_LOOPBACK: "1",
    NODE_EXTRA_CA_CERTS: join(dir, "cert.pem"),
  };
  server = await startPicks(serveArgs(site.publicDir), env, /listening on http/);
  key = await issuePaidKey(env);
}, 60_000);
afterAll(async () => {
  server.child.kill("SIGTERM");
  await server.exited;
  await documents.close();
});

async function startDocumentServer(dir: string) {
  await promisify(execFile)("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
    "-keyout",
    join(dir, "key.pem"),
    "-out",
    join(dir, "cert.pem"),
  ]);
  const bodies = new Map<string, string>();
  const https = createHttpsServer(
    { key: await readFile(join(dir, "key.pem")), cert: await readFile(join(dir, "cert.pem")) },
    (req, res) => {
      const body = bodies.get(req.url ?? "");
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { "content-type": "application/json" }).end(body);
    },
  );
  await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
  return {
    origin: `https://127.0.0.1:${(https.address() as AddressInfo).port}`,
    serve: (path: string, body: string) => void bodies.set(path, body),
    close: () => new Promise<void>((resolve) => https.close(() => resolve())),
  };
}

const base = () => server.url as string;

async function usedCalls(apiKey: string): Promise<number> {
  const me = (await (await fetch(`${base()}/v1/me`, { headers: { "x-api-key": apiKey } })).json()) as {
    usage: { used: number };
  };
  return me.usage.used;
}

describe("the MCP SDK's client, with OAuth", () => {
  it("registers, is sent to consent, gets a code, and calls the tools as the key it was approved with", async () => {
    const provider = memoryProvider();
    const first = new Client({ name: "headless", version: "1.0.0" });
    await expect(
      first.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { authProvider: provider })),
    ).rejects.toThrow(/Unauthorized/i);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.pathname).toBe("/oauth/authorize");
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");

    const { answer, location } = await consent(authorizationUrl, key);
    expect(answer.status).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get("state")).toBe("state-from-the-client");
    expect(location.searchParams.get("iss")).toBe(base());
    const code = location.searchParams.get("code") as string;

    const transport = new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { authProvider: provider });
    await transport.finishAuth(code);
    const tokens = (await provider.tokens()) as OAuthTokens;
    expect(tokens.access_token).toMatch(/^rpat_/);
    expect(tokens.refresh_token).toMatch(/^rprt_/);
    expect(JSON.stringify(tokens)).not.toContain(key);

    const before = await usedCalls(key);
    const client = new Client({ name: "headless", version: "1.0.0" });
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain("labs_papers");
    const result = await client.callTool({ name: "labs_papers", arguments: { days: 7 } });
    expect(result.isError).toBeFalsy();
    expect(await usedCalls(key)).toBe(before + 1);

    // labs_for_me with the token is the list of the key it stands for, charged as labs_papers.
    expect(tools.tools.map((tool) => tool.name)).toContain("labs_for_me");
    const cold = (await client.callTool({ name: "labs_for_me", arguments: {} })).structuredContent as {
      personal: boolean;
      items: { arxiv_id: string; authors: string[] }[];
    };
    expect(cold.personal).toBe(false);
    expect(await usedCalls(key)).toBe(before + 2);
    const author = cold.items.at(-1)?.authors[0] as string;
    const follows = await fetch(`${base()}/v1/me/follows`, {
      method: "PUT",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ authors: [author], phrases: [] }),
    });
    expect(follows.status).toBe(200);
    const mine = await client.callTool({ name: "labs_for_me", arguments: {} });
    expect(mine.isError).toBeFalsy();
    const list = mine.structuredContent as typeof cold;
    expect(list.personal).toBe(true);
    expect(list.items[0]?.authors).toContain(author);
    const rest = await fetch(`${base()}/v1/me/picks`, { headers: { "x-api-key": key } });
    expect(mine.structuredContent).toEqual(await rest.json());
    expect(await usedCalls(key)).toBe(before + 4);
    await client.close();
  }, 60_000);
});

const python = mcpPython();
describe.skipIf(python === undefined)(
  "the MCP Python SDK (skipped where no Python has it; .ci/run installs it)",
  () => {
    it("lists labs_for_me and calls it with a key and with an OAuth token, as the key's own list", async () => {
      const tokens = (await (await exchange(await codeFor(key))).json()) as { access_token: string };
      const rest = await (
        await fetch(`${base()}/v1/me/picks?limit=3`, { headers: { "x-api-key": key } })
      ).json();
      for (const header of [
        ["X-API-Key", key],
        ["Authorization", `Bearer ${tokens.access_token}`],
      ] as [string, string][]) {
        const call = await callWithPythonSdk(python as string, `${base()}/mcp`, header, "labs_for_me", {
          limit: 3,
        });
        expect(call.tools).toContain("labs_for_me");
        expect(call.is_error).toBe(false);
        expect(call.structured).toEqual(rest);
      }
    }, 60_000);
  },
);

describe("a client described by its metadata document", () => {
  it("is fetched at its https client_id, and connects without registering", async () => {
    const clientId = `${documents.origin}/agent/client.json`;
    documents.serve(
      "/agent/client.json",
      JSON.stringify({
        client_id: clientId,
        client_name: "Agent with a metadata document",
        redirect_uris: [REDIRECT],
      }),
    );
    const provider = memoryProvider();
    provider.clientMetadataUrl = clientId;
    const registrations = async () => (await fetch(`${base()}/oauth/register`, { method: "OPTIONS" })).status;
    expect(await registrations()).toBe(204);
    const first = new Client({ name: "headless", version: "1.0.0" });
    await expect(
      first.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { authProvider: provider })),
    ).rejects.toThrow(/Unauthorized/i);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get("client_id")).toBe(clientId);
    const page = await (await fetch(authorizationUrl)).text();
    expect(page).toContain("Agent with a metadata document");
    const { location } = await consent(authorizationUrl, key);
    const transport = new StreamableHTTPClientTransport(new URL(`${base()}/mcp`), { authProvider: provider });
    await transport.finishAuth(location.searchParams.get("code") as string);
    const client = new Client({ name: "headless", version: "1.0.0" });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  }, 60_000);

  it("fetches no document whose address has a query, and says so on the page", async () => {
    const clientId = `${documents.origin}/agent/client.json?to=elsewhere`;
    const answer = await fetch(authorizeUrl(clientId, REDIRECT, randomBytes(32).toString("base64url")), {
      redirect: "manual",
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get("location")).toBeNull();
  });

  it.each([
    ["not JSON", "<html>", /not JSON/],
    [
      "another client_id",
      JSON.stringify({
        client_id: "https://elsewhere.example/c.json",
        client_name: "x",
        redirect_uris: [REDIRECT],
      }),
      /another client_id/,
    ],
    ["an http redirect off loopback", "REDIRECT_HTTP", /only on loopback/],
    ["too large", JSON.stringify({ pad: "x".repeat(6000) }), /could not be fetched/],
  ])("refuses a document that is %s, with the reason on the page", async (_name, body, reason) => {
    const path = `/bad/${Math.random().toString(36).slice(2)}.json`;
    const clientId = `${documents.origin}${path}`;
    documents.serve(
      path,
      body === "REDIRECT_HTTP"
        ? JSON.stringify({ client_id: clientId, client_name: "x", redirect_uris: ["http://evil.example/cb"] })
        : body,
    );
    const answer = await fetch(authorizeUrl(clientId, REDIRECT, randomBytes(32).toString("base64url")), {
      redirect: "manual",
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get("location")).toBeNull();
    expect(await answer.text()).toMatch(reason);
  });
});

/** A client registered by hand, as a client registers itself. */
async function registerClient(name: string): Promise<string> {
  const answer = await fetch(`${base()}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: name, redirect_uris: ["http://127.0.0.1/cb"] }),
  });
  return ((await answer.json()) as { client_id: string }).client_id;
}

/** An authorization request of `clientId` back to `redirect`, with the S256 challenge of `verifier`. */
function authorizeUrl(clientId: string, redirect: string, verifier: string, state?: string): URL {
  const url = new URL(`${base()}/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirect,
    response_type: "code",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    ...(state ? { state } : {}),
  }).toString();
  return url;
}

/** A registered client and a code for it, made by hand as a client would. */
async function codeFor(apiKey: string, options: { redirect?: string } = {}) {
  const clientId = await registerClient("by hand");
  const verifier = randomBytes(32).toString("base64url");
  const redirect = options.redirect ?? "http://127.0.0.1:40000/cb";
  const { location } = await consent(authorizeUrl(clientId, redirect, verifier, "s1"), apiKey);
  return { clientId, verifier, redirect, code: location.searchParams.get("code") as string };
}

const token = (form: Record<string, string>) =>
  fetch(`${base()}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });

const exchange = (got: Awaited<ReturnType<typeof codeFor>>, verifier = got.verifier) =>
  token({
    grant_type: "authorization_code",
    code: got.code,
    client_id: got.clientId,
    redirect_uri: got.redirect,
    code_verifier: verifier,
  });

const mcpList = (accessToken: string, origin = base()) =>
  fetch(`${origin}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });

describe("the authorization server, from outside", () => {
  it("serves both metadata documents without credentials, with CORS, and 404 for other well-known paths", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
    ]) {
      const answer = await fetch(`${base()}${path}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    }
    const resource = (await (await fetch(`${base()}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      resource: string;
    };
    expect(resource.resource).toBe(`${base()}/mcp`);
    expect((await fetch(`${base()}/.well-known/openid-configuration`)).status).toBe(404);
  });

  it("challenges /mcp without credentials with the resource metadata's address", async () => {
    const answer = await fetch(`${base()}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toContain(
      `resource_metadata="${base()}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("shows an unregistered redirect URI on the page, with no Location", async () => {
    const clientId = await registerClient("by hand");
    const evil = authorizeUrl(clientId, "https://evil.example/cb", randomBytes(32).toString("base64url"));
    const answer = await fetch(evil, { redirect: "manual" });
    expect(answer.status).toBe(400);
    expect(answer.headers.get("location")).toBeNull();
  });

  it("refuses plain PKCE on the page, never redirecting an error the person did not cause", async () => {
    const got = await codeFor(key);
    const url = new URL(`${base()}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: got.clientId,
      redirect_uri: got.redirect,
      response_type: "code",
      code_challenge: "a-plain-challenge-that-is-long-enough-to-pass-43",
      code_challenge_method: "plain",
      state: "s2",
    }).toString();
    const answer = await fetch(url, { redirect: "manual" });
    expect(answer.status).toBe(400);
    expect(answer.headers.get("location")).toBeNull();
    expect(await answer.text()).toContain("S256");
  });

  it("answers a wrong verifier with invalid_grant", async () => {
    const got = await codeFor(key);
    const answer = await exchange(got, randomBytes(32).toString("base64url"));
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("revokes what a code gave when the code comes back", async () => {
    const got = await codeFor(key);
    const first = (await (await exchange(got)).json()) as { access_token: string };
    expect((await mcpList(first.access_token)).status).toBe(200);
    const again = await exchange(got);
    expect(((await again.json()) as { error: string }).error).toBe("invalid_grant");
    const refused = await mcpList(first.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("rotates refresh tokens, takes the client's retry within the grace, and ends the grant when a spent one comes back later", async () => {
    const got = await codeFor(key);
    const tokens = (await (await exchange(got)).json()) as { refresh_token: string };
    const refresh = () =>
      token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: got.clientId });
    // Two at once, as a client whose first answer was lost sends its retry: both get tokens.
    const [rotated, retried] = (await Promise.all(
      (await Promise.all([refresh(), refresh()])).map((answer) => answer.json()),
    )) as { access_token: string; refresh_token: string }[];
    expect(rotated?.refresh_token).not.toBe(tokens.refresh_token);
    expect((await mcpList(rotated?.access_token as string)).status).toBe(200);
    expect((await mcpList(retried?.access_token as string)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, (REFRESH_RETRY_SECONDS + 0.5) * 1000));
    const reused = await refresh();
    expect(((await reused.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await mcpList(rotated?.access_token as string)).status).toBe(401);
    expect((await mcpList(retried?.access_token as string)).status).toBe(401);
  }, 30_000);

  it("takes a token only for the resource it was issued for", async () => {
    const got = await codeFor(key);
    const tokens = (await (await exchange(got)).json()) as { access_token: string };
    // Issued through 127.0.0.1: its audience is that origin's /mcp, not localhost's.
    const other = base().replace("127.0.0.1", "localhost");
    expect((await mcpList(tokens.access_token, other)).status).toBe(401);
  });

  it("refuses a consent without its CSRF token", async () => {
    const answer = await fetch(`${base()}/oauth/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: "rpc_x", api_key: key, decision: "approve" }),
      redirect: "manual",
    });
    expect(answer.status).toBe(403);
    expect(answer.headers.get("location")).toBeNull();
  });

  it("never takes a token where a key is expected", async () => {
    const got = await codeFor(key);
    const tokens = (await (await exchange(got)).json()) as { access_token: string };
    expect((await fetch(`${base()}/v1/me`, { headers: { "x-api-key": tokens.access_token } })).status).toBe(
      401,
    );
    const asKey = await fetch(`${base()}/mcp`, {
      method: "POST",
      headers: {
        "x-api-key": tokens.access_token,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(asKey.status).toBe(401);
  });

  it("issues a free key on the consent page once per address; its spent quota is a 429, not a 401", async () => {
    const clientId = await registerClient("free");
    const verifier = randomBytes(32).toString("base64url");
    const url = authorizeUrl(clientId, "http://127.0.0.1:40001/cb", verifier);
    const issueOnPage = async () => {
      const page = await fetch(url);
      const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const form = new URLSearchParams();
      for (const [, name, value] of (await page.text()).matchAll(
        /<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g,
      )) {
        form.set(name as string, value as string);
      }
      form.set("email", "person@example.org");
      form.set("decision", "issue");
      return fetch(`${base()}/oauth/authorize`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: form,
      });
    };
    const issued = await issueOnPage();
    expect(issued.status).toBe(201);
    const freeKey = /<code>(rp_labs_[A-Za-z0-9_]+)<\/code>/.exec(await issued.text())?.[1] as string;
    expect(freeKey).toBeDefined();
    expect((await issueOnPage()).status).toBe(429);

    const { location } = await consent(url, freeKey);
    const tokens = (await (
      await token({
        grant_type: "authorization_code",
        code: location.searchParams.get("code") as string,
        client_id: clientId,
        redirect_uri: "http://127.0.0.1:40001/cb",
        code_verifier: verifier,
      })
    ).json()) as { access_token: string };
    const call = (body: unknown) =>
      fetch(`${base()}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${tokens.access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(body),
      });
    const stats = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "labs_stats", arguments: {} },
    });
    expect((await call(Array.from({ length: 100 }, (_, id) => stats(id + 1)))).status).toBe(200);
    const spent = await call(stats(101));
    expect(spent.status).toBe(429);
    expect(spent.headers.get("retry-after")).not.toBeNull();
    expect(await usedCalls(freeKey)).toBe(100);
  }, 30_000);

  it("ends a revoked key's tokens within the key cache's 5 s", async () => {
    const own = await issuePaidKey(env);
    const got = await codeFor(own);
    const tokens = (await (await exchange(got)).json()) as { access_token: string };
    expect((await mcpList(tokens.access_token)).status).toBe(200);
    const revoked = await runPicks(["keys", "revoke", own], { ...process.env, ...env });
    expect(revoked.code, revoked.stderr).toBe(0);
    await waitFor(
      async () => (await mcpList(tokens.access_token)).status === 401 || null,
      7_000,
      "401 after revoke",
    );
  }, 30_000);
});

describe("a grant of a key that is revoked", () => {
  it("answers invalid_grant to its refresh and to a code approved before, so the client asks again", async () => {
    const own = await issuePaidKey(env);
    const got = await codeFor(own);
    const approvedBefore = await codeFor(own);
    const tokens = (await (await exchange(got)).json()) as { access_token: string; refresh_token: string };
    const revoked = await runPicks(["keys", "revoke", own], { ...process.env, ...env });
    expect(revoked.code, revoked.stderr).toBe(0);
    // Seen by the server within the key cache's 5 s, as the key's own requests see it.
    await waitFor(
      async () => (await mcpList(tokens.access_token)).status === 401 || null,
      7_000,
      "401 after revoke",
    );
    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: got.clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({
      error: "invalid_grant",
      error_description: expect.stringMatching(/API key .* revoked or replaced/),
    });
    const exchanged = await exchange(approvedBefore);
    expect(exchanged.status).toBe(400);
    expect(((await exchanged.json()) as { error: string }).error).toBe("invalid_grant");
  }, 30_000);
});

// Last: it spends this address's registrations for the hour.
describe("registration", () => {
  it("limits registrations per address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 45 && !statuses.includes(429); i++) {
      const answer = await fetch(`${base()}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["http://127.0.0.1/cb"] }),
      });
      statuses.push(answer.status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(40);
  });
});

import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GRANT_SECONDS } from "../../../pipeline/domain/oauth-grants.ts";
import type { AppContext } from "../../../server/context.ts";
import { createApp } from "../../../server/http/app.ts";
import { listen, type RunningServer } from "../../../server/http/listen.ts";
import { CSRF_SECONDS } from "../../../server/oauth/oauth-answers.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";

// The authorization server's endpoints in process, with the clock (the app's and the store's) in the
// test's hands: what the security review of OAuth found, each answer as it now is.

const DAY = 86_400_000;
const START = Date.parse("2026-11-28T06:00:00Z");
const ORIGIN = "https://app.example";

let snapshots: SnapshotCache;
let clock: number;
let context: AppContext;
let app: ReturnType<typeof createApp>;
let apiKey: string;

beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
});
afterAll(() => snapshots.close());
beforeEach(async () => {
  clock = START;
  const now = () => clock;
  context = await testContext(snapshots, {
    store: await createMemoryStore({ clock: now }),
    now,
    config: {
      mcpAllowedOrigins: [ORIGIN],
      oauthTokenRate: { name: "oauth-token", limit: 3, windowSeconds: 60 },
      oauthConsentRate: { name: "oauth-consent", limit: 4, windowSeconds: 3600 },
    },
  });
  app = createApp(context);
  apiKey = (await context.keys.issue({ tier: "pro", email: "p@example.org", label: "t" })).key;
});

/** A request in process, from 127.0.0.1 as srvx would give it. */
async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const request = new Request(`http://localhost${path}`, init);
  Object.defineProperty(request, "ip", { value: "127.0.0.1" });
  return app.fetch(request);
}

const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(fields),
  redirect: "manual",
});

async function register(redirectUris: string[]): Promise<Response> {
  return call("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "t", redirect_uris: redirectUris }),
  });
}

const REDIRECT = "http://127.0.0.1:41000/cb";

/** A registered client's authorization request, its consent page and that page's form. */
async function consentForm(state = "s1") {
  const { client_id: clientId } = (await (await register([REDIRECT])).json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state,
  });
  const page = await call(`/oauth/authorize?${query}`);
  expect(page.status).toBe(200);
  const fields: Record<string, string> = {};
  for (const [, name, value] of (await page.text()).matchAll(
    /<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g,
  ))
    fields[name as string] = value as string;
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return { clientId, verifier, fields, cookie };
}

async function approve(got: Awaited<ReturnType<typeof consentForm>>, change: Record<string, string> = {}) {
  return call(
    "/oauth/authorize",
    form({ ...got.fields, api_key: apiKey, decision: "approve", ...change }, { cookie: got.cookie }),
  );
}

async function tokensFor() {
  const got = await consentForm();
  const code = new URL((await approve(got)).headers.get("location") as string).searchParams.get(
    "code",
  ) as string;
  const answer = await call(
    "/oauth/token",
    form({
      grant_type: "authorization_code",
      code,
      client_id: got.clientId,
      redirect_uri: REDIRECT,
      code_verifier: got.verifier,
    }),
  );
  expect(answer.status).toBe(200);
  return {
    clientId: got.clientId,
    ...((await answer.json()) as { access_token: string; refresh_token: string }),
  };
}

describe("redirect URIs at registration: an allowlist", () => {
  it.each([
    "vbscript:msgbox(1)",
    "livescript:x",
    "mhtml:x",
    "jar:https://a.example/x!/",
    "x-javascript:x",
    "mailto:a@b.example",
    "tel:1",
    "myapp://cb",
  ])("refuses %s with invalid_redirect_uri", async (uri) => {
    const answer = await register([uri]);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: "invalid_redirect_uri" });
  });

  it.each([
    "https://claude.ai/api/mcp/auth_callback",
    "http://127.0.0.1/cb",
    "com.example.app:/cb",
    "cursor://anysphere.cursor-retrieval/oauth/callback",
  ])("registers %s", async (uri) => {
    expect((await register([uri])).status).toBe(201);
  });
});

describe("the token endpoint", () => {
  it("says when to come back in its 429", async () => {
    const statuses: Response[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(await call("/oauth/token", form({ grant_type: "refresh_token" })));
    const refused = statuses.at(-1) as Response;
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: "slow_down" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-policy")).toContain("oauth-token");
    expect(refused.headers.get("cache-control")).toBe("no-store");
  });

  it("answers invalid_grant, not invalid_client, to a refresh past the grant's 90 days", async () => {
    const tokens = await tokensFor();
    let refreshToken = tokens.refresh_token;
    // A client in use refreshes now and then; its registration lives on with its grant.
    for (const day of [29, 58, 87]) {
      clock = START + day * DAY;
      const answer = await call(
        "/oauth/token",
        form({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: tokens.clientId }),
      );
      expect(answer.status, `day ${day}`).toBe(200);
      refreshToken = ((await answer.json()) as { refresh_token: string }).refresh_token;
    }
    clock = START + GRANT_SECONDS * 1000 + 1_000;
    const late = await call(
      "/oauth/token",
      form({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: tokens.clientId }),
    );
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("answers invalid_grant to a refresh once the key is revoked", async () => {
    const tokens = await tokensFor();
    await context.keys.revoke(apiKey);
    const answer = await call(
      "/oauth/token",
      form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: tokens.clientId }),
    );
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: "invalid_grant" });
  });
});

describe("the consent form's CSRF token", () => {
  it("is taken for its own request, before its end", async () => {
    const got = await consentForm();
    clock += (CSRF_SECONDS - 1) * 1000;
    expect((await approve(got)).status).toBe(302);
  });

  it("ends on the server after its time, whatever the browser keeps", async () => {
    const got = await consentForm();
    clock += CSRF_SECONDS * 1000;
    const answer = await approve(got);
    expect(answer.status).toBe(403);
    expect(answer.headers.get("location")).toBeNull();
  });

  it.each([
    ["another state", { state: "s2" }],
    ["another code challenge", { code_challenge: createHash("sha256").update("other").digest("base64url") }],
    ["another redirect port", { redirect_uri: "http://127.0.0.1:41001/cb" }],
  ])("is refused for %s than the page was made for", async (_name, change) => {
    const got = await consentForm();
    const answer = await approve(got, change);
    expect(answer.status).toBe(403);
    expect(answer.headers.get("location")).toBeNull();
  });

  it("is refused without its cookie, or without itself", async () => {
    const got = await consentForm();
    expect(
      (await call("/oauth/authorize", form({ ...got.fields, api_key: apiKey, decision: "approve" }))).status,
    ).toBe(403);
    const { csrf: _csrf, ...withoutToken } = got.fields;
    const answer = await call(
      "/oauth/authorize",
      form({ ...withoutToken, api_key: apiKey, decision: "approve" }, { cookie: got.cookie }),
    );
    expect(answer.status).toBe(403);
  });
});

describe("the consent form's tries per address", () => {
  it("answers 429 on the page past the rate, with Retry-After and the minutes left of the window", async () => {
    for (let i = 0; i < 4; i++) expect((await approve(await consentForm())).status).toBe(302);
    // The window opened at the first try: 20 minutes on, 40 are left of its hour.
    clock += 20 * 60_000;
    const refused = await approve(await consentForm());
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("2400");
    expect(refused.headers.get("ratelimit-policy")).toContain("oauth-consent");
    expect(await refused.text()).toContain("try again in 40 minutes.");
    clock += 40 * 60_000 + 1000;
    expect((await approve(await consentForm())).status).toBe(302);
  });
});

describe("the consent page's free key", () => {
  it("counts the email in code points, as POST /v1/keys does", async () => {
    // 64 code points, within the 120 of the schema, but 126 UTF-16 units.
    const email = `${"😀".repeat(62)}@x`;
    const got = await consentForm();
    const answer = await call(
      "/oauth/authorize",
      form({ ...got.fields, email, decision: "issue" }, { cookie: got.cookie }),
    );
    expect(answer.status).toBe(201);
    const again = await consentForm();
    const refused = await call(
      "/oauth/authorize",
      form({ ...again.fields, email: "a".repeat(121), decision: "issue" }, { cookie: again.cookie }),
    );
    expect(refused.status).toBe(422);
  });
});

describe("/mcp for a browser on an allowed origin", () => {
  let running: RunningServer;
  beforeEach(async () => {
    running = await listen(context, { port: 0, host: "127.0.0.1" });
    return () => running.close();
  });

  it("passes the preflight, and refuses it for any other origin", async () => {
    const preflight = (origin: string) =>
      fetch(`${running.url}/mcp`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
        },
      });
    const passed = await preflight(ORIGIN);
    expect(passed.status).toBe(204);
    expect(passed.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(passed.headers.get("access-control-allow-methods")).toContain("POST");
    expect(passed.headers.get("access-control-allow-headers")).toContain("authorization");
    expect(passed.headers.get("access-control-allow-headers")).toContain("mcp-protocol-version");
    const refused = await preflight("https://elsewhere.example");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
  });

  it.each([
    "in process",
    "over the port",
  ])("exposes the challenge of a 401 and the headers of a 200 (%s)", async (way) => {
    const post = (headers: Record<string, string>) => {
      const init = {
        method: "POST",
        headers: {
          origin: ORIGIN,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      };
      return way === "in process" ? call("/mcp", init) : fetch(`${running.url}/mcp`, init);
    };
    const challenged = await post({});
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(challenged.headers.get("access-control-expose-headers")).toMatch(/www-authenticate/);
    expect(challenged.headers.get("access-control-expose-headers")).toMatch(/mcp-session-id/);
    const listed = await post({ authorization: `Bearer ${apiKey}` });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(listed.headers.get("access-control-expose-headers")).toMatch(/mcp-session-id/);
  });

  it("sends no CORS header to a request without Origin, as before", async () => {
    const answer = await fetch(`${running.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    expect((await fetch(`${running.url}/mcp`, { method: "OPTIONS" })).status).toBe(405);
  });
});

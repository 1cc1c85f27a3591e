import type { H3, H3Event } from "h3";
import { SCOPES_SUPPORTED } from "../../pipeline/domain/oauth-authorize.ts";
import { ClientMetadataSchema, metadataProblem } from "../../pipeline/domain/oauth-client.ts";
import { limitByIp } from "../access/ip-limit.ts";
import type { AppContext } from "../context.ts";
import { json, notFound } from "../http/answers.ts";
import { decideConsent, showConsent } from "../oauth/authorize-endpoint.ts";
import { BODY_MAX_BYTES, readForm, single } from "../oauth/form-body.ts";
import { baseUrlOf, NO_STORE, OPEN_CORS, oauthError, resourceOf } from "../oauth/oauth-answers.ts";
import { clientOf } from "../oauth/oauth-clients.ts";
import { readBodyLimited } from "../validation/read-body.ts";

// The authorization server of the hosted MCP (OAuth 2.1 as the MCP authorization spec asks): the
// metadata of the protected resource (RFC 9728) and of the server (RFC 8414), dynamic client
// registration (RFC 7591), authorization with PKCE and a consent page where a person approves a
// client with their API key (../oauth/authorize-endpoint.ts), the token endpoint, and revocation
// (RFC 7009). The grants' rules are pure in pipeline/domain/oauth-grants.ts, applied by
// ../oauth/grants.ts; every redirect goes through redirectTo in ../oauth/oauth-answers.ts.

const withCors = (response: Response): Response => {
  for (const [name, value] of Object.entries(OPEN_CORS)) response.headers.set(name, value);
  return response;
};

const preflight = (): Response => withCors(new Response(null, { status: 204 }));

/** Without PUBLIC_BASE_URL the documents name the request's own host: a shared cache must not keep one. */
const metadataHeaders = (context: AppContext): Record<string, string> => ({
  ...OPEN_CORS,
  "cache-control": context.config.publicBaseUrl === null ? "no-store" : "public, max-age=3600",
});

/** RFC 9728: what a client learns from /mcp's challenge. */
function protectedResourceMetadata(context: AppContext, event: H3Event): Response {
  const base = baseUrlOf(context, event.req);
  return json(
    200,
    {
      resource: resourceOf(base),
      authorization_servers: [base],
      scopes_supported: [...SCOPES_SUPPORTED],
      bearer_methods_supported: ["header"],
      resource_name: "Research-Picks MCP",
      resource_documentation: `${base}/v1/docs`,
    },
    metadataHeaders(context),
  );
}

/** RFC 8414. */
function authorizationServerMetadata(context: AppContext, event: H3Event): Response {
  const base = baseUrlOf(context, event.req);
  return json(
    200,
    {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      scopes_supported: [...SCOPES_SUPPORTED],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      service_documentation: `${base}/v1/docs`,
    },
    metadataHeaders(context),
  );
}

/** POST /oauth/register (RFC 7591): a public client, rate-limited per address. */
async function register(context: AppContext, event: H3Event): Promise<Response> {
  const rate = context.config.oauthRegisterRate;
  const limited = await limitByIp(context, event, rate.name, rate.limit, rate.windowSeconds);
  if (!limited.allowed) {
    return withCors(
      json(
        429,
        {
          error: "too_many_requests",
          error_description: `at most ${rate.limit} registrations an hour from one address`,
        },
        { ...limited.headers, ...NO_STORE },
      ),
    );
  }
  const read = await readBodyLimited(event.req, BODY_MAX_BYTES);
  if (!read.ok)
    return oauthError(413, "invalid_client_metadata", `the metadata is larger than ${BODY_MAX_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(read.bytes));
  } catch {
    return oauthError(400, "invalid_client_metadata", "the body is not JSON");
  }
  const parsed = ClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const problem = metadataProblem(parsed.error);
    return "redirectUri" in problem
      ? oauthError(400, "invalid_redirect_uri", problem.redirectUri)
      : oauthError(400, "invalid_client_metadata", `${problem.path || "body"}: ${problem.message}`);
  }
  const client = await context.oauth.registerClient({
    client_name: parsed.data.client_name?.trim() || "An unnamed client",
    redirect_uris: parsed.data.redirect_uris,
  });
  return json(
    201,
    {
      ...client,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: SCOPES_SUPPORTED.join(" "),
    },
    { ...NO_STORE, ...OPEN_CORS },
  );
}

/** POST /oauth/token: a code exchange or a refresh (RFC 6749 §4.1.3, §6), rate-limited per address. */
async function token(context: AppContext, event: H3Event): Promise<Response> {
  const form = await readForm(event);
  if (!form)
    return oauthError(400, "invalid_request", "send the token request as application/x-www-form-urlencoded");
  const rate = context.config.oauthTokenRate;
  const tries = await limitByIp(context, event, rate.name, rate.limit, rate.windowSeconds);
  if (!tries.allowed) {
    const description = `at most ${rate.limit} token requests a minute from one address`;
    return oauthError(429, "slow_down", description, tries.headers);
  }
  if ((form.get("grant_type")?.length ?? 0) > 1)
    return oauthError(400, "invalid_request", "grant_type is repeated");
  const grantType = single(form, "grant_type");
  const clientId = single(form, "client_id");
  if (!clientId) return oauthError(401, "invalid_client", "client_id is missing");
  const { client, problem } = await clientOf(context, event, clientId);
  if (!client) return oauthError(401, "invalid_client", problem ?? "this client is not registered here");
  const resource = form.has("resource") ? (single(form, "resource") ?? "") : undefined;
  let answer: Awaited<ReturnType<typeof context.oauth.refresh>>;
  if (grantType === "authorization_code") {
    answer = await context.oauth.exchangeCode({
      code: single(form, "code") ?? "",
      clientId,
      redirectUri: single(form, "redirect_uri") ?? "",
      verifier: single(form, "code_verifier") ?? "",
      resource,
    });
  } else if (grantType === "refresh_token") {
    answer = await context.oauth.refresh({
      refreshToken: single(form, "refresh_token") ?? "",
      clientId,
      resource,
    });
  } else {
    return oauthError(
      400,
      "unsupported_grant_type",
      "grant_type must be authorization_code or refresh_token",
    );
  }
  if ("error" in answer) return oauthError(400, answer.error, answer.error_description);
  return json(200, answer, { ...NO_STORE, ...OPEN_CORS });
}

/** POST /oauth/revoke (RFC 7009). */
async function revoke(context: AppContext, event: H3Event): Promise<Response> {
  const form = await readForm(event);
  if (!form)
    return oauthError(400, "invalid_request", "send the revocation as application/x-www-form-urlencoded");
  const given = single(form, "token");
  if (given) await context.oauth.revoke(given);
  // RFC 7009 §2.2: the same answer whether or not the token was known.
  return withCors(new Response(null, { status: 200, headers: NO_STORE }));
}

export function registerOAuthRoutes(app: H3, context: AppContext): void {
  for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
    app.get(path, (event) => protectedResourceMetadata(context, event));
    app.options(path, preflight);
  }
  app.get("/.well-known/oauth-authorization-server", (event) => authorizationServerMetadata(context, event));
  app.options("/.well-known/oauth-authorization-server", preflight);
  app.post("/oauth/register", (event) => register(context, event));
  app.options("/oauth/register", preflight);
  app.get("/oauth/authorize", (event) => showConsent(context, event));
  app.post("/oauth/authorize", (event) => decideConsent(context, event));
  app.post("/oauth/token", (event) => token(context, event));
  app.options("/oauth/token", preflight);
  app.post("/oauth/revoke", (event) => revoke(context, event));
  app.options("/oauth/revoke", preflight);
  // Any other metadata path is unknown, never an authentication challenge.
  app.all("/.well-known/**", () => notFound());
}

import type { H3, H3Event } from "h3";
import { z } from "zod";
import { checkAuthorize, SCOPES_SUPPORTED } from "../../pipeline/domain/oauth-authorize.ts";
import { checkRedirectUri, MAX_REDIRECT_URIS } from "../../pipeline/domain/oauth-redirect.ts";
import { limitByIp } from "../access/ip-limit.ts";
import type { AppContext } from "../context.ts";
import { json, notFound } from "../http/answers.ts";
import { consentPage, errorPage } from "../oauth/consent-page.ts";
import type { OAuthClient } from "../oauth/grants.ts";
import {
  baseUrlOf,
  csrfHolds,
  formTargetOf,
  htmlPage,
  NO_STORE,
  newCsrf,
  OPEN_CORS,
  oauthError,
  redirectTo,
  resourceOf,
} from "../oauth/oauth-answers.ts";
import { readBodyLimited } from "../validation/read-body.ts";

// The authorization server of the hosted MCP (OAuth 2.1 as the MCP authorization spec asks): the
// metadata of the protected resource (RFC 9728) and of the server (RFC 8414), dynamic client
// registration (RFC 7591), authorization with PKCE and a consent page where a person approves a
// client with their API key, the token endpoint, and revocation (RFC 7009). The grants' rules are in
// ../oauth/grants.ts; every redirect goes through redirectTo in ../oauth/oauth-answers.ts.

/** Registration and form bodies are small: a client's metadata, or a form of seven fields. */
const BODY_MAX_BYTES = 16 * 1024;

const RegistrationSchema = z.object({
  redirect_uris: z.array(z.string()).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().max(100).optional(),
  token_endpoint_auth_method: z.literal("none").optional(),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).optional(),
  response_types: z.array(z.literal("code")).optional(),
  scope: z.string().max(200).optional(),
});

const withCors = (response: Response): Response => {
  for (const [name, value] of Object.entries(OPEN_CORS)) response.headers.set(name, value);
  return response;
};

const preflight = (): Response => withCors(new Response(null, { status: 204 }));

/** A form body (application/x-www-form-urlencoded), each name with all its values; undefined when not one. */
async function readForm(event: H3Event): Promise<Map<string, string[]> | undefined> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(event.req.headers.get("content-type") ?? ""))
    return undefined;
  const read = await readBodyLimited(event.req, BODY_MAX_BYTES);
  if (!read.ok) return undefined;
  const form = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(new TextDecoder().decode(read.bytes))) {
    form.set(name, [...(form.get(name) ?? []), value]);
  }
  return form;
}

const single = (form: Map<string, string[]>, name: string): string | undefined => {
  const values = form.get(name);
  return values?.length === 1 ? values[0] : undefined;
};

function paramsOf(url: URL): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) params.set(name, [...(params.get(name) ?? []), value]);
  return params;
}

export function registerOAuthRoutes(app: H3, context: AppContext): void {
  // Without PUBLIC_BASE_URL the documents name the request's own host: a shared cache must not keep one.
  const metadataCaching = () => (context.config.publicBaseUrl === null ? "no-store" : "public, max-age=3600");

  const metadataOfResource = (event: H3Event) => {
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
      { ...OPEN_CORS, "cache-control": metadataCaching() },
    );
  };
  for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
    app.get(path, metadataOfResource);
    app.options(path, preflight);
  }

  app.get("/.well-known/oauth-authorization-server", (event) => {
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
      { ...OPEN_CORS, "cache-control": metadataCaching() },
    );
  });
  app.options("/.well-known/oauth-authorization-server", preflight);

  app.post("/oauth/register", async (event) => {
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
          {
            ...limited.headers,
            ...NO_STORE,
          },
        ),
      );
    }
    const read = await readBodyLimited(event.req, BODY_MAX_BYTES);
    if (!read.ok)
      return oauthError(
        413,
        "invalid_client_metadata",
        `the metadata is larger than ${BODY_MAX_BYTES} bytes`,
      );
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(read.bytes));
    } catch {
      return oauthError(400, "invalid_client_metadata", "the body is not JSON");
    }
    const parsed = RegistrationSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return oauthError(
        400,
        "invalid_client_metadata",
        `${issue?.path.join(".") || "body"}: ${issue?.message}`,
      );
    }
    for (const uri of parsed.data.redirect_uris) {
      const checked = checkRedirectUri(uri);
      if ("problem" in checked)
        return oauthError(400, "invalid_redirect_uri", `${uri.slice(0, 200)}: ${checked.problem}`);
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
  });
  app.options("/oauth/register", preflight);

  /** A registered client, or one described by its metadata document; why not, for a document. */
  const clientOf = async (
    event: H3Event,
    clientId: string,
  ): Promise<{ client?: OAuthClient; problem?: string }> => {
    if (!context.clientMetadata.names(clientId)) {
      return { client: (await context.oauth.client(clientId)) ?? undefined };
    }
    if (!context.clientMetadata.known(clientId)) {
      // Each fetch is one this server makes for whoever asks: a rate per address bounds it.
      const rate = context.config.oauthRegisterRate;
      const limited = await limitByIp(
        context,
        event,
        "oauth-client-documents",
        rate.limit * 3,
        rate.windowSeconds,
      );
      if (!limited.allowed)
        return { problem: "too many client metadata documents asked for from this address; try later" };
    }
    const resolved = await context.clientMetadata.resolve(clientId);
    return "problem" in resolved ? { problem: resolved.problem } : { client: resolved };
  };

  /** The checked request of a GET or POST to /oauth/authorize, or the answer that refuses it. */
  const checkedAuthorize = async (event: H3Event, params: Map<string, string[]>) => {
    const clientId = params.get("client_id")?.[0] ?? "";
    const { client, problem } = await clientOf(event, clientId);
    if (problem) return htmlPage(400, errorPage("invalid_client", problem));
    const base = baseUrlOf(context, event.req);
    const checked = checkAuthorize(params, client ?? undefined, resourceOf(base));
    // Every error is shown on the page, none redirected: anyone can register a redirect URI (or host a
    // metadata document naming one), and an error sent there without the person acting would make
    // this server an open redirector (RFC 9700 §4.11.2). Only the person's own Deny goes back.
    if (checked.status !== "ok") return htmlPage(400, errorPage(checked.error, checked.description));
    return { request: checked.request, clientName: client?.client_name ?? "", base };
  };

  app.get("/oauth/authorize", async (event) => {
    const checked = await checkedAuthorize(event, paramsOf(event.url));
    if (checked instanceof Response) return checked;
    const csrf = newCsrf(context, checked.base.startsWith("https:"));
    return htmlPage(
      200,
      consentPage({ request: checked.request, clientName: checked.clientName, csrf: csrf.token }),
      formTargetOf(checked.request.redirectUri),
      { "set-cookie": csrf.cookie },
    );
  });

  app.post("/oauth/authorize", async (event) => {
    const form = await readForm(event);
    if (!form) return htmlPage(400, errorPage("invalid_request", "the consent form was not sent as a form"));
    if (!csrfHolds(context, event.req.headers.get("cookie"), single(form, "csrf"))) {
      return htmlPage(
        403,
        errorPage("invalid_request", "the consent form expired or did not come from this site; start again"),
      );
    }
    // The carried fields are checked again, exactly as the GET was: the form is the person's browser's.
    const params = new Map(form);
    params.set("response_type", ["code"]);
    params.set("code_challenge_method", ["S256"]);
    const checked = await checkedAuthorize(event, params);
    if (checked instanceof Response) return checked;
    const { request, base } = checked;
    const decision = single(form, "decision");
    const again = (status: number, extra: { problem?: string; issuedKey?: string }) => {
      const csrf = newCsrf(context, base.startsWith("https:"));
      return htmlPage(
        status,
        consentPage({ request, clientName: checked.clientName, csrf: csrf.token, ...extra }),
        formTargetOf(request.redirectUri),
        { "set-cookie": csrf.cookie },
      );
    };
    if (decision === "issue") {
      // A free key, under the rule of POST /v1/keys: one a client address in 24 hours.
      const email = single(form, "email")?.trim() ?? "";
      if (email.length < 3 || email.length > 120)
        return again(422, { problem: "Give an email of 3 to 120 characters." });
      const limit = context.config.keyIssueLimit;
      const allowed = await limitByIp(context, event, "keys", limit, context.config.keyIssueWindowSeconds);
      if (!allowed.allowed) {
        return again(429, {
          problem: "This address already received a free key in the last 24 hours: use that one.",
        });
      }
      const issued = await context.keys.issue({
        tier: "free",
        email,
        label: checked.clientName.slice(0, 80) || "OAuth",
      });
      return again(201, { issuedKey: issued.key });
    }
    if (decision !== "approve") {
      return redirectTo(request.redirectUri, {
        error: "access_denied",
        error_description: "the person declined",
        state: request.state,
        iss: base,
      });
    }
    // Keys tried on this form: a rate per address, so it is no oracle for guessing keys.
    const tries = await limitByIp(context, event, "oauth-consent", 30, 3600);
    if (!tries.allowed)
      return again(429, { problem: "Too many tries from this address; try again in an hour." });
    const auth = await context.keys.authenticate(single(form, "api_key")?.trim() ?? null);
    if (!auth.ok) {
      const problem =
        auth.why === "missing"
          ? "Paste your API key."
          : auth.why === "revoked"
            ? "This API key has been revoked."
            : "That is not a valid API key of this service.";
      return again(401, { problem });
    }
    const code = await context.oauth.issueCode({
      client_id: request.clientId,
      redirect_uri: request.redirectUri,
      challenge: request.codeChallenge,
      resource: request.resource,
      scope: request.scope,
      key_hash: auth.record.hash,
    });
    return redirectTo(request.redirectUri, { code, state: request.state, iss: base });
  });

  app.post("/oauth/token", async (event) => {
    const form = await readForm(event);
    if (!form)
      return oauthError(
        400,
        "invalid_request",
        "send the token request as application/x-www-form-urlencoded",
      );
    const tries = await limitByIp(context, event, "oauth-token", 120, 60);
    if (!tries.allowed)
      return oauthError(429, "slow_down", "at most 120 token requests a minute from one address");
    if ((form.get("grant_type")?.length ?? 0) > 1)
      return oauthError(400, "invalid_request", "grant_type is repeated");
    const grantType = single(form, "grant_type");
    const clientId = single(form, "client_id");
    if (!clientId) return oauthError(401, "invalid_client", "client_id is missing");
    const { client, problem } = await clientOf(event, clientId);
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
  });
  app.options("/oauth/token", preflight);

  app.post("/oauth/revoke", async (event) => {
    const form = await readForm(event);
    if (!form)
      return oauthError(400, "invalid_request", "send the revocation as application/x-www-form-urlencoded");
    const token = single(form, "token");
    if (token) await context.oauth.revoke(token);
    // RFC 7009 §2.2: the same answer whether or not the token was known.
    return withCors(new Response(null, { status: 200, headers: NO_STORE }));
  });
  app.options("/oauth/revoke", preflight);

  // Any other metadata path is unknown, never an authentication challenge.
  app.all("/.well-known/**", () => notFound());
}

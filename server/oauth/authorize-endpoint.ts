import type { H3Event } from "h3";
import { type AuthorizeRequest, checkAuthorize } from "../../pipeline/domain/oauth-authorize.ts";
import { checkFreeKeyRequest, issueFreeKey } from "../access/free-key.ts";
import { limitByIp } from "../access/ip-limit.ts";
import type { AuthFailure } from "../access/key-service.ts";
import type { AppContext } from "../context.ts";
import { carriedValues, consentPage, errorPage, requestBinding } from "./consent-page.ts";
import { type Params, queryParams, readForm, single } from "./form-body.ts";
import {
  baseUrlOf,
  csrfHolds,
  formTargetOf,
  htmlPage,
  newCsrf,
  redirectTo,
  resourceOf,
} from "./oauth-answers.ts";
import { clientOf } from "./oauth-clients.ts";

// GET and POST /oauth/authorize: the consent page, and the person's decision on it (allow with a key,
// get a free key, or deny). Every refusal of the request is shown on the page (the policy in
// pipeline/domain/oauth-authorize.ts); the only redirects are the person's own Allow and Deny, to a
// redirect URI the client registered, through redirectTo.

/** An authorization request checked against its client, with what the page shows of that client. */
interface Checked {
  request: AuthorizeRequest;
  clientName: string;
  base: string;
}

/** The checked request of a GET or POST, or the error page that refuses it. */
async function checkedAuthorize(
  context: AppContext,
  event: H3Event,
  params: Params,
): Promise<Checked | Response> {
  const { client, problem } = await clientOf(context, event, params.get("client_id")?.[0] ?? "");
  if (problem) return htmlPage(400, errorPage("invalid_client", problem));
  const base = baseUrlOf(context, event.req);
  const checked = checkAuthorize(params, client, resourceOf(base));
  if (!checked.ok) return htmlPage(400, errorPage(checked.error, checked.description));
  return { request: checked.request, clientName: client?.client_name ?? "", base };
}

/** The consent page for a checked request, with a fresh CSRF pair bound to that request. */
function consentAnswer(
  context: AppContext,
  { request, clientName, base }: Checked,
  status: number,
  extra: { problem?: string; issuedKey?: string; headers?: Record<string, string> } = {},
): Response {
  const values = carriedValues(request);
  const csrf = newCsrf(
    context,
    base.startsWith("https:"),
    requestBinding((name) => values[name]),
  );
  return htmlPage(
    status,
    consentPage({
      request,
      clientName,
      csrf: csrf.token,
      problem: extra.problem,
      issuedKey: extra.issuedKey,
    }),
    formTargetOf(request.redirectUri),
    { ...extra.headers, "set-cookie": csrf.cookie },
  );
}

/** GET /oauth/authorize. */
export async function showConsent(context: AppContext, event: H3Event): Promise<Response> {
  const checked = await checkedAuthorize(context, event, queryParams(event.url));
  return checked instanceof Response ? checked : consentAnswer(context, checked, 200);
}

/** POST /oauth/authorize: a form of this server's, for the request it was made for, before it expires. */
export async function decideConsent(context: AppContext, event: H3Event): Promise<Response> {
  const form = await readForm(event);
  if (!form) return htmlPage(400, errorPage("invalid_request", "the consent form was not sent as a form"));
  const binding = requestBinding((name) => single(form, name) ?? "");
  if (!csrfHolds(context, event.req.headers.get("cookie"), single(form, "csrf"), binding)) {
    return htmlPage(
      403,
      errorPage("invalid_request", "the consent form expired or did not come from this site; start again"),
    );
  }
  // The carried fields are checked again, exactly as the GET was: the form is the person's browser's.
  const params = new Map(form);
  params.set("response_type", ["code"]);
  params.set("code_challenge_method", ["S256"]);
  const checked = await checkedAuthorize(context, event, params);
  if (checked instanceof Response) return checked;
  const decision = single(form, "decision");
  if (decision === "issue") return issueKey(context, event, checked, form);
  if (decision === "approve") return approve(context, event, checked, form);
  return deny(checked);
}

/** "Get a free key": the rules of POST /v1/keys, shown on the page; the new key is filled in. */
async function issueKey(
  context: AppContext,
  event: H3Event,
  checked: Checked,
  form: Params,
): Promise<Response> {
  const asked = checkFreeKeyRequest({
    email: single(form, "email")?.trim() ?? "",
    // The client's name labels the key, cut to the label's 80 code points.
    label: [...checked.clientName].slice(0, 80).join("") || "OAuth",
  });
  if (!asked.ok)
    return consentAnswer(context, checked, 422, { problem: "Give an email of 3 to 120 characters." });
  const issued = await issueFreeKey(context, event, asked.value);
  if (!issued.ok) {
    return consentAnswer(context, checked, 429, {
      problem: "This address already received a free key in the last 24 hours: use that one.",
    });
  }
  return consentAnswer(context, checked, 201, { issuedKey: issued.key });
}

const KEY_PROBLEMS: Record<AuthFailure, string> = {
  missing: "Paste your API key.",
  malformed: "That is not a valid API key of this service.",
  unknown: "That is not a valid API key of this service.",
  revoked: "This API key has been revoked.",
};

/** "Allow": a code bound to the whole request and the key, sent back to the client. */
async function approve(
  context: AppContext,
  event: H3Event,
  checked: Checked,
  form: Params,
): Promise<Response> {
  // Keys tried on this form: a rate per address, so it is no oracle for guessing keys.
  const rate = context.config.oauthConsentRate;
  const tries = await limitByIp(context, event, rate.name, rate.limit, rate.windowSeconds);
  if (!tries.allowed) {
    // The window opens at the address's first try, so the wait is what is left of it, not the window.
    const minutes = Math.ceil(Number(tries.headers["retry-after"]) / 60);
    return consentAnswer(context, checked, 429, {
      problem: `Too many tries from this address; try again in ${minutes === 1 ? "a minute" : `${minutes} minutes`}.`,
      headers: tries.headers,
    });
  }
  const auth = await context.keys.authenticate(single(form, "api_key")?.trim() ?? null);
  if (!auth.ok) return consentAnswer(context, checked, 401, { problem: KEY_PROBLEMS[auth.why] });
  const { request, base } = checked;
  const code = await context.oauth.issueCode({
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    challenge: request.codeChallenge,
    resource: request.resource,
    scope: request.scope,
    key_hash: auth.record.hash,
  });
  return redirectTo(request.redirectUri, { code, state: request.state, iss: base });
}

/** "Deny": the person's own answer goes back to the client (RFC 6749 §4.1.2.1). */
const deny = ({ request, base }: Checked): Response =>
  redirectTo(request.redirectUri, {
    error: "access_denied",
    error_description: "the person declined",
    state: request.state,
    iss: base,
  });

import { escapeHtml as html } from "../../pipeline/domain/html-escape.ts";
import type { AuthorizeRequest } from "../../pipeline/domain/oauth-authorize.ts";

// The pages of /oauth/authorize: the consent form, and the error a person sees when the request cannot
// be trusted to say where to send them. Plain HTML with the site's stylesheet, no script, nothing
// from elsewhere; every text that came with the request is escaped.

/** The fields the form carries back, so the POST is checked exactly as the GET was. */
const CARRIED = ["client_id", "redirect_uri", "code_challenge", "state", "resource", "scope"] as const;
export type CarriedField = (typeof CARRIED)[number];

/** The values the form carries for a checked request. */
export const carriedValues = (request: AuthorizeRequest): Record<CarriedField, string> => ({
  client_id: request.clientId,
  redirect_uri: request.redirectUri,
  code_challenge: request.codeChallenge,
  state: request.state ?? "",
  resource: request.resource,
  scope: request.scope,
});

/** One text for the carried values, in a fixed order: what the form's CSRF token is bound to. */
export const requestBinding = (values: (name: CarriedField) => string): string =>
  JSON.stringify(CARRIED.map(values));

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html(title)} · Research-Picks</title>
<link rel="stylesheet" href="/assets/style.css">
</head>
<body>
<main class="oauth">
<h1>${html(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

/** The consent form for an authorization request already checked. */
export function consentPage(input: {
  request: AuthorizeRequest;
  clientName: string;
  csrf: string;
  problem?: string;
  /** A free key just issued on this page: shown once, and filled in below. */
  issuedKey?: string;
}): string {
  // The name is the client's own claim: say where it comes from, so a look-alike name can be judged.
  const origin = /^https?:\/\//.test(input.request.clientId)
    ? `its description is published at ${new URL(input.request.clientId).host}`
    : "it registered itself here; the name is its own";
  const { request } = input;
  const returnTo = (() => {
    const url = new URL(request.redirectUri);
    return url.protocol === "http:" || url.protocol === "https:" ? url.host : `${url.protocol}//`;
  })();
  const values = carriedValues(request);
  const hidden = CARRIED.map(
    (name) => `<input type="hidden" name="${name}" value="${html(values[name])}">`,
  ).join("\n");
  return page(
    "Connect an agent",
    `<p><strong>${html(input.clientName)}</strong> (${html(origin)}) asks to use the Research-Picks tools (labs_papers, labs_paper,
labs_axes, labs_stats, and labs_for_me, the list the key's reader profile ranks) as your API key: each tool call
spends that key's quota, with its tier's history.
It will not see the key itself.</p>
<p>You will be sent back to <strong>${html(returnTo)}</strong>.</p>
${input.problem ? `<p class="oauth-problem" role="alert">${html(input.problem)}</p>` : ""}
${
  input.issuedKey
    ? `<p class="oauth-issued" role="status">Your new free key: <code>${html(input.issuedKey)}</code>. Store it now: it is
shown only this once. It is filled in below.</p>`
    : ""
}
<form method="post" action="/oauth/authorize">
${hidden}
<input type="hidden" name="csrf" value="${html(input.csrf)}">
<label for="api_key">Your API key</label>
<input id="api_key" name="api_key" type="password" autocomplete="off" spellcheck="false" required
  pattern="[A-Za-z0-9_]+" placeholder="rp_labs_..."${input.issuedKey ? ` value="${html(input.issuedKey)}"` : ""}>
<div class="oauth-actions">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>
${
  input.issuedKey
    ? ""
    : `<h2>No key yet?</h2>
<form method="post" action="/oauth/authorize">
${hidden}
<input type="hidden" name="csrf" value="${html(input.csrf)}">
<label for="email">Your email, for the free key</label>
<input id="email" name="email" type="email" autocomplete="email" required minlength="3" maxlength="120">
<button type="submit" name="decision" value="issue">Get a free key</button>
</form>`
}`,
  );
}

/** What a person sees when the request is refused before its redirect URI can be trusted. */
export function errorPage(error: string, description: string): string {
  return page(
    "This connection cannot be made",
    `<p>${html(description)}</p>
<p>Error: <code>${html(error)}</code>. Go back to the application and try connecting again.</p>`,
  );
}

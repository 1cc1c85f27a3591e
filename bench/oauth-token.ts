// An OAuth access token for a key, got the way a client gets one: registration, the consent form
// posted with the key, and the code exchanged with its PKCE verifier.

import { createHash, randomBytes } from "node:crypto";

export async function accessTokenFor(base: string, key: string): Promise<string> {
  const redirect = "http://127.0.0.1:9/cb";
  const registered = (await (
    await fetch(`${base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "bench", redirect_uris: [redirect] }),
    })
  ).json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const authorize = new URL(`${base}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    client_id: registered.client_id,
    redirect_uri: redirect,
    response_type: "code",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  }).toString();
  const page = await fetch(authorize);
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const form = new URLSearchParams();
  for (const [, name, value] of (await page.text()).matchAll(
    /<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g,
  )) {
    form.set(name as string, value as string);
  }
  form.set("api_key", key);
  form.set("decision", "approve");
  const approved = await fetch(`${base}/oauth/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: form,
    redirect: "manual",
  });
  const code = new URL(approved.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const tokens = (await (
    await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        client_id: registered.client_id,
        redirect_uri: redirect,
        code_verifier: verifier,
      }),
    })
  ).json()) as { access_token: string };
  return tokens.access_token;
}

// Where the authorization server may send a person back to: the redirect URIs a client may register,
// and whether the one an authorization request names is one of them. Every redirect the server makes
// goes to an address these rules accepted (RFC 9700 §4.1, RFC 8252 §7).

export type RedirectKind = "https" | "loopback" | "private-use";

/** How long a redirect URI may be, and how many one client may register. */
export const MAX_REDIRECT_URI_LENGTH = 2000;
export const MAX_REDIRECT_URIS = 10;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
// A private-use scheme is the app's own, named in reverse-domain form (RFC 8252 §7.1:
// `com.example.app:/cb`): at least two dot-separated labels of letters, digits and hyphens. Such a name
// is no scheme a browser or an operating system gives a meaning of its own (`javascript:`,
// `vbscript:`, `mhtml:`, `jar:`, `mailto:`, `tel:` ...), so an allowlist rather than a blocklist.
const REVERSE_DOMAIN = /^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$/;
// The few MCP clients whose registered scheme predates that form, each an app's own: Cursor, VS Code.
const APP_SCHEMES = new Set(["cursor", "vscode", "vscode-insiders"]);
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

/**
 * Whether `uri` may be registered as a redirect URI, and of which kind; a reason otherwise.
 *
 * @example checkRedirectUri("http://127.0.0.1:33418/callback") // { kind: "loopback" }
 * @example checkRedirectUri("http://example.org/cb") // { problem: "http is allowed only on loopback ..." }
 */
export function checkRedirectUri(uri: string): { kind: RedirectKind } | { problem: string } {
  if (uri.length > MAX_REDIRECT_URI_LENGTH)
    return { problem: `longer than ${MAX_REDIRECT_URI_LENGTH} characters` };
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  const url = parse(uri);
  if (!scheme || !url) return { problem: "not an absolute URI" };
  if (url.hash !== "" || uri.includes("#")) return { problem: "a redirect URI may not have a fragment" };
  if (url.username !== "" || url.password !== "")
    return { problem: "a redirect URI may not carry credentials" };
  if (scheme === "https") {
    return url.hostname === "" ? { problem: "an https redirect URI needs a host" } : { kind: "https" };
  }
  if (scheme === "http") {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? { kind: "loopback" }
      : { problem: "http is allowed only on loopback (127.0.0.1, [::1], localhost); use https" };
  }
  if (REVERSE_DOMAIN.test(scheme) || APP_SCHEMES.has(scheme)) return { kind: "private-use" };
  return {
    problem: `the ${scheme}: scheme is not a redirect URI: use https, http on loopback, or an app's own scheme in reverse-domain form (com.example.app:/callback)`,
  };
}

/**
 * Whether the redirect URI an authorization request names is one the client registered: the same
 * string, except that a loopback URI may name any port (RFC 8252 §7.3: a native app listens on
 * whatever port it is given).
 *
 * @example redirectMatches(["http://127.0.0.1/cb"], "http://127.0.0.1:51234/cb") // true
 */
export function redirectMatches(registered: readonly string[], asked: string): boolean {
  if (registered.includes(asked)) return true;
  const url = parse(asked);
  if (url?.protocol !== "http:" || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  if ("problem" in checkRedirectUri(asked)) return false;
  const portless = (value: URL) => `${value.protocol}//${value.hostname}${value.pathname}${value.search}`;
  return registered.some((uri) => {
    const known = parse(uri);
    return known !== undefined && known.protocol === "http:" && portless(known) === portless(url);
  });
}

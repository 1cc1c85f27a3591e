// The site's base URL, apart from the feeds: `picks serve` reads it at every start and need not load
// the feeds' XML parser and the publish step's schema checker with it (about 50 ms of a start).

/** Where `picks serve` listens by default: the feeds link there unless PUBLIC_BASE_URL says otherwise. */
export const DEFAULT_SITE_URL = "http://127.0.0.1:8787";

/** The site's base URL from PUBLIC_BASE_URL, without a trailing slash; throws on anything but http(s). */
export function siteUrlFromEnv(env: NodeJS.ProcessEnv): string {
  const raw = env.PUBLIC_BASE_URL?.trim() || DEFAULT_SITE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(
      `Expected PUBLIC_BASE_URL to be an http(s) URL such as https://picks.example.org, got \`${raw}\``,
    );
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
    throw new Error(
      `Expected PUBLIC_BASE_URL to be an http(s) URL without query or fragment, got \`${raw}\``,
    );
  }
  return url.href.replace(/\/+$/, "");
}

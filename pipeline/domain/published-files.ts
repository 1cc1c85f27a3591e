// What each published file is, wherever it is served from: its media type and the caching that
// `picks serve` sends for it. A bucket gets the same headers stored on each object, so a CDN in front
// of the bucket caches exactly as the server would.

/** The page and its assets are revalidated on every use (an ETag makes that a 304). */
export const CACHE_SITE = "no-cache";
/** Files that change with each published day: the pointer, recent, stats, the feeds. */
export const CACHE_MOVING = "public, max-age=300";
/**
 * Dated days can still change (a rerun, refreshed citation figures), so even they are cached for an
 * hour rather than forever.
 */
export const CACHE_DATED = "public, max-age=3600";

export const JSON_TYPE = "application/json";
export const ATOM_TYPE = "application/atom+xml; charset=utf-8";
export const JSON_FEED_TYPE = "application/feed+json";
export const HTML_TYPE = "text/html; charset=utf-8";

export const ASSET_TYPES: Readonly<Record<string, string>> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** The pointer to the newest day: written after everything it can lead a reader to. */
export const POINTER_KEY = "v1/daily/latest.json";
/** Every published key with its hash and size: written last, the truth a server polls. */
export const MANIFEST_KEY = "v1/manifest.json";

/** Held by a publisher while it writes: never itself published. */
export const LEASE_KEY = "v1/publish-lease.json";

/**
 * Where each published file's bytes are also stored under their SHA-256: objects that are never
 * rewritten (a name is its content), which servers read by the manifest's hashes, so no publish under
 * way, failed or killed can show them a mix of two publishes. The paths above are for the CDN.
 */
export const OBJECTS_PREFIX = "v1/objects/";
/** An object named by its content never changes: any cache may keep it for good. */
export const OBJECT_HEADERS: PublishedHeaders = {
  contentType: "application/octet-stream",
  cacheControl: "public, max-age=31536000, immutable",
};

/** The key of the object holding the bytes whose SHA-256 (hex) is `sha256`. */
export const objectKey = (sha256: string): string => `${OBJECTS_PREFIX}${sha256}`;

export const DAY_KEY = /^v1\/daily\/(\d{4}-\d{2}-\d{2})\.json$/;
/** A day's screened candidates: dated like the day, and published with it. */
export const SCREENED_KEY = /^v1\/screened\/(\d{4}-\d{2}-\d{2})\.json$/;
const FEED_KEY = /^feed(?:-[a-z0-9-]+)?\.(xml|json)$/;

export interface PublishedHeaders {
  contentType: string;
  cacheControl: string;
}

/** A key's extension, lower case, with its dot: `.js`; "" for none. */
export function extension(key: string): string {
  const dot = key.lastIndexOf(".");
  return dot > key.lastIndexOf("/") ? key.slice(dot).toLowerCase() : "";
}

/**
 * The headers a published file is served with, or undefined for a file that is not published (dot
 * files, temporary files, the Pages-style `_headers` and `_redirects`, unknown kinds).
 *
 * @example publishedHeaders("v1/daily/2026-11-20.json") // { contentType: "application/json", cacheControl: "public, max-age=3600" }
 */
export function publishedHeaders(key: string): PublishedHeaders | undefined {
  if (key.split("/").some((part) => part === "" || part.startsWith("."))) return undefined;
  if (key.endsWith(".tmp") || key === LEASE_KEY || key.startsWith(OBJECTS_PREFIX)) return undefined;
  if (key === "index.html") return { contentType: HTML_TYPE, cacheControl: CACHE_SITE };
  if (key.startsWith("assets/")) {
    const type = ASSET_TYPES[extension(key)];
    return type ? { contentType: type, cacheControl: CACHE_SITE } : undefined;
  }
  const feed = FEED_KEY.exec(key);
  if (feed) {
    return { contentType: feed[1] === "xml" ? ATOM_TYPE : JSON_FEED_TYPE, cacheControl: CACHE_MOVING };
  }
  if (key === MANIFEST_KEY) return { contentType: JSON_TYPE, cacheControl: CACHE_SITE };
  if (DAY_KEY.test(key) || SCREENED_KEY.test(key))
    return { contentType: JSON_TYPE, cacheControl: CACHE_DATED };
  if (key.startsWith("v1/") && key.endsWith(".json"))
    return { contentType: JSON_TYPE, cacheControl: CACHE_MOVING };
  if (key.startsWith("v1/") && key.endsWith(".jsonl")) {
    return { contentType: "application/x-ndjson", cacheControl: CACHE_MOVING };
  }
  return undefined;
}

/**
 * The phases of a publish, in order: the dated days, then the assets, then what is derived from the
 * days and the page, then the pointer, then the manifest. A reader following any file finds what it
 * names. (The content-addressed objects go up before all of them.)
 */
export const PUBLISH_PHASES = ["days", "assets", "derived", "pointer", "manifest"] as const;
export type PublishPhase = (typeof PUBLISH_PHASES)[number];

/** The phase a published key is uploaded in. */
export function publishPhase(key: string): PublishPhase {
  if (DAY_KEY.test(key) || SCREENED_KEY.test(key)) return "days";
  if (key.startsWith("assets/")) return "assets";
  if (key === POINTER_KEY) return "pointer";
  if (key === MANIFEST_KEY) return "manifest";
  return "derived";
}

/** Orders keys by their publish phase, then by name. */
export function byPublishOrder(a: string, b: string): number {
  const phases = PUBLISH_PHASES.indexOf(publishPhase(a)) - PUBLISH_PHASES.indexOf(publishPhase(b));
  return phases || (a < b ? -1 : a > b ? 1 : 0);
}

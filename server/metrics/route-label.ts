// The route label of a request: the template it matched, never its path, so the number of series is
// the number of routes, whatever clients ask for.

/** The label of every request no route took (404s of unknown paths, requests refused before routing). */
export const UNMATCHED = "unmatched";

/** The routes registered with `/**` that answer 404 for whatever is below them. */
const CATCH_ALL = new Set(["/**", "/.well-known/**"]);

/** The label of an h3 route template; undefined (no route matched) or a catch-all is UNMATCHED. */
export function routeLabel(template: string | undefined): string {
  return template === undefined || CATCH_ALL.has(template) ? UNMATCHED : template;
}

const DAY_ROUTE = "/v1/daily/:date";
const ASSETS_ROUTE = "/assets/**";
const LATEST = "/v1/daily/latest";
/** The files the snapshot fast path answers at a path of their own, each registered as a route. */
const FIXED_PATHS = new Set([
  "/",
  "/index.html",
  "/v1/daily/latest",
  "/v1/recent",
  "/v1/stats",
  "/v1/axes",
  "/v1/ranker",
  "/v1/search-index.json",
]);
/** Anything else the fast path held: a feed (the feed routes are one each) or a file not routed. */
const FEED = /^\/feed(-[a-z0-9-]+)?\.(xml|json)$/;

/**
 * The route template of a path the snapshot fast path answered, as the app's router would name it.
 * The path is one the published tree holds, so it is bounded already; feeds keep their own names
 * (a fixed set of channels), and anything unexpected collapses into one label.
 */
export function snapshotRoute(url: string): string {
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  if (path.startsWith("/v1/daily/")) return path === LATEST ? LATEST : DAY_ROUTE;
  if (path.startsWith("/assets/")) return ASSETS_ROUTE;
  if (FIXED_PATHS.has(path)) return path;
  return FEED.test(path) ? path : "static";
}

/** The methods counted by name; Node's parser takes a few dozen more, counted as "other". */
const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "other"] as const;
const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;

export function methodIndex(method: string | undefined): number {
  switch (method) {
    case "GET":
      return 0;
    case "HEAD":
      return 1;
    case "POST":
      return 2;
    case "PUT":
      return 3;
    case "DELETE":
      return 4;
    case "PATCH":
      return 5;
    case "OPTIONS":
      return 6;
    default:
      return 7;
  }
}

export const methodName = (index: number): string => METHODS[index] ?? "other";

/** 0 for 1xx up to 4 for 5xx; anything outside 100..599 counts as 5xx. */
export function statusIndex(status: number): number {
  const index = Math.floor(status / 100) - 1;
  return index >= 0 && index <= 4 ? index : 4;
}

export const statusClassName = (index: number): string => STATUS_CLASSES[index] ?? "5xx";

export const METHOD_COUNT = METHODS.length;
export const STATUS_CLASS_COUNT = STATUS_CLASSES.length;

import { readdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { FEED_CHANNELS } from "../../pipeline/domain/feed-channels.ts";
import { type PreparedResponse, prepare } from "../http/prepared.ts";
import { readOptional } from "./read-optional.ts";

// The static site (index.html, its assets and the feeds) served by `picks serve` the way a static host
// would, from a map built when the folder is loaded. A request path is only ever a key into that map:
// no file system path is built from a URL, so nothing outside the listed files can be reached.

const ASSET_TYPES: Readonly<Record<string, string>> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

// The page and its assets are revalidated on every use (the ETag makes that a 304), so a new
// deployment shows at once; the feeds change once a day and follow the moving snapshot files.
const CACHE_SITE = "no-cache";
const CACHE_FEED = "public, max-age=300";
export const ATOM_TYPE = "application/atom+xml; charset=utf-8";
export const JSON_FEED_TYPE = "application/feed+json";
const MAX_ASSET_BYTES = 5 * 1024 * 1024;
const MAX_ASSET_DEPTH = 4;

// The page loads only its own files and talks only to its own origin; the same policy is in a meta tag
// for static hosts, and frame-ancestors only works as a header.
const PAGE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function withHeaders(prepared: PreparedResponse, extra: Record<string, string>): PreparedResponse {
  return { ...prepared, headers: { ...prepared.headers, ...extra } };
}

/** Every servable file under `dir`, as `/assets/...` paths; dot files, temp files and big files left out. */
async function listAssets(dir: string, urlPrefix: string, depth: number, log: (m: string) => void) {
  const found: Array<[string, string]> = [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    const url = `${urlPrefix}/${encodeURIComponent(entry.name)}`;
    if (entry.isDirectory() && depth < MAX_ASSET_DEPTH) {
      found.push(...(await listAssets(path, url, depth + 1, log)));
    } else if (entry.isFile() && ASSET_TYPES[extname(entry.name).toLowerCase()]) {
      const size = (await stat(path)).size;
      if (size > MAX_ASSET_BYTES) log(`not serving ${path}: larger than ${MAX_ASSET_BYTES} bytes`);
      else found.push([url, path]);
    }
  }
  return found;
}

/**
 * The prepared answers of the site under `publicDir`: `/` and `/index.html`, `/assets/**` (known
 * types only), every feed (`/feed.xml`, `/feed.json`, `/feed-governance.xml`, ...) and
 * `/v1/search-index.json`, each only when the file exists.
 */
export async function loadStaticSite(
  publicDir: string,
  log: (message: string) => void = () => {},
): Promise<Map<string, PreparedResponse>> {
  const site = new Map<string, PreparedResponse>();
  const security = { "x-content-type-options": "nosniff" };
  const page = await readOptional(join(publicDir, "index.html"));
  if (page) {
    const prepared = withHeaders(prepare(page, CACHE_SITE, "text/html; charset=utf-8"), {
      ...security,
      "content-security-policy": PAGE_POLICY,
      "referrer-policy": "strict-origin-when-cross-origin",
    });
    site.set("/", prepared);
    site.set("/index.html", prepared);
  }
  for (const [url, path] of await listAssets(join(publicDir, "assets"), "/assets", 1, log)) {
    const body = await readOptional(path);
    const type = ASSET_TYPES[extname(path).toLowerCase()] as string;
    if (body) site.set(url, withHeaders(prepare(body, CACHE_SITE, type), security));
  }
  const feeds: ReadonlyArray<[string, string]> = [
    ...FEED_CHANNELS.flatMap(
      (channel): Array<[string, string]> => [
        [`/${channel.atomFile}`, ATOM_TYPE],
        [`/${channel.jsonFile}`, JSON_FEED_TYPE],
      ],
    ),
    // The archive's search index: a plain file on every host, loaded by the page's search box.
    ["/v1/search-index.json", "application/json"],
  ];
  for (const [url, type] of feeds) {
    const body = await readOptional(join(publicDir, url.slice(1)));
    if (body) site.set(url, withHeaders(prepare(body, CACHE_FEED, type), security));
  }
  return site;
}

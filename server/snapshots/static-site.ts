import { FEED_CHANNELS } from "../../pipeline/domain/feed-channels.ts";
import {
  ASSET_TYPES,
  ATOM_TYPE,
  CACHE_MOVING,
  CACHE_SITE,
  extension,
  HTML_TYPE,
  JSON_FEED_TYPE,
  JSON_TYPE,
} from "../../pipeline/domain/published-files.ts";
import { type PreparedResponse, prepare, withHeaders } from "../http/prepared.ts";
import type { LoadView } from "./load-view.ts";

// The static site (index.html, its assets and the feeds) served by `picks serve` the way a static host
// would, from a map built when the published files are loaded. A request path is only ever a key into
// that map: no file path is built from a URL, so nothing outside the listed files can be reached.

const MAX_ASSET_BYTES = 5 * 1024 * 1024;
const MAX_ASSET_DEPTH = 4;

// The page loads only its own files and talks only to its own origin; the same policy is in a meta tag
// for static hosts, and frame-ancestors only works as a header.
const PAGE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * The prepared answers of the published site: `/` and `/index.html`, `/assets/**` (known types only,
 * at most four folders deep), every feed (`/feed.xml`, `/feed.json`, `/feed-governance.xml`, ...) and
 * `/v1/search-index.json`, each only when the file is published. Prepared when the site loads.
 */
export async function loadStaticSite(
  view: LoadView,
  log: (message: string) => void = () => {},
): Promise<Map<string, PreparedResponse>> {
  const site = new Map<string, PreparedResponse>();
  const security = { "x-content-type-options": "nosniff" };
  const page = await view.hold("index.html", (body) =>
    withHeaders(prepare(body, CACHE_SITE, HTML_TYPE), {
      ...security,
      "content-security-policy": PAGE_POLICY,
      "referrer-policy": "strict-origin-when-cross-origin",
    }),
  );
  if (page) {
    site.set("/", page);
    site.set("/index.html", page);
  }
  for (const entry of view.listing.values()) {
    if (!entry.key.startsWith("assets/")) continue;
    const segments = entry.key.split("/");
    const type = ASSET_TYPES[extension(entry.key)];
    if (!type || segments.length > MAX_ASSET_DEPTH + 1) continue;
    if (entry.size > MAX_ASSET_BYTES) {
      log(`not serving ${entry.key}: larger than ${MAX_ASSET_BYTES} bytes`);
      continue;
    }
    const prepared = await view.hold(entry.key, (body) =>
      withHeaders(prepare(body, CACHE_SITE, type), security),
    );
    if (prepared) site.set(`/${segments.map(encodeURIComponent).join("/")}`, prepared);
  }
  const feeds: ReadonlyArray<[string, string]> = [
    ...FEED_CHANNELS.flatMap(
      (channel): Array<[string, string]> => [
        [`/${channel.atomFile}`, ATOM_TYPE],
        [`/${channel.jsonFile}`, JSON_FEED_TYPE],
      ],
    ),
    // The archive's search index: a plain file on every host, loaded by the page's search box.
    ["/v1/search-index.json", JSON_TYPE],
  ];
  for (const [url, type] of feeds) {
    const prepared = await view.hold(url.slice(1), (body) =>
      withHeaders(prepare(body, CACHE_MOVING, type), security),
    );
    if (prepared) site.set(url, prepared);
  }
  return site;
}

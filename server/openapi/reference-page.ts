import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type PreparedResponse, prepare } from "../http/prepared.ts";

// The interactive reference at /v1/docs: Swagger UI from the swagger-ui-dist package, served by this
// server from memory. The page and its script name only same-origin paths, relative to /v1/docs so
// the page also works under a path prefix, and its policy forbids loading anything from elsewhere.

/** Where the assets are served, as the page at /v1/docs refers to them. */
export const ASSET_PREFIX = "docs/assets/";

// Only what the page uses: no standalone preset, whose top bar would load any URL typed into it.
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

// No validator badge: Swagger UI would send the document to validator.swagger.io to draw it.
const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Research-Picks API reference</title>
    <link rel="stylesheet" href="${ASSET_PREFIX}swagger-ui.css">
    <link rel="icon" type="image/png" href="${ASSET_PREFIX}favicon-32x32.png">
  </head>
  <body>
    <noscript>The interactive reference needs JavaScript; the description is at
      <a href="openapi.json">openapi.json</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="${ASSET_PREFIX}swagger-ui-bundle.js"></script>
    <script src="${ASSET_PREFIX}init.js"></script>
  </body>
</html>
`;

// Swagger UI sets styles inline; everything else may come only from this origin.
const PAGE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
  "frame-ancestors 'none'";

const CACHE = "no-cache";
const NOSNIFF = { "x-content-type-options": "nosniff" };

function withHeaders(prepared: PreparedResponse, extra: Record<string, string>): PreparedResponse {
  return { ...prepared, headers: { ...prepared.headers, ...extra } };
}

// The maps are not shipped, so their references would only earn 404s in the browser's devtools.
const withoutSourceMap = (text: string): string =>
  text.replace(/\n?\/[*/]# sourceMappingURL=\S+\s*(\*\/)?\s*$/, "");

export interface ReferencePage {
  page: PreparedResponse;
  /** By file name under /v1/docs/assets/. */
  assets: ReadonlyMap<string, PreparedResponse>;
}

async function load(): Promise<ReferencePage> {
  const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const assets = new Map<string, PreparedResponse>();
  for (const [name, type] of Object.entries(PACKAGE_FILES)) {
    const bytes = await readFile(join(dir, name));
    const body = type.startsWith("image/") ? bytes : Buffer.from(withoutSourceMap(bytes.toString("utf8")));
    assets.set(name, withHeaders(prepare(body, CACHE, type), NOSNIFF));
  }
  assets.set(
    "init.js",
    withHeaders(prepare(Buffer.from(INIT_SCRIPT), CACHE, "text/javascript; charset=utf-8"), NOSNIFF),
  );
  const page = withHeaders(prepare(Buffer.from(PAGE), CACHE, "text/html; charset=utf-8"), {
    ...NOSNIFF,
    "content-security-policy": PAGE_POLICY,
    "referrer-policy": "no-referrer",
  });
  return { page, assets };
}

let loaded: Promise<ReferencePage> | undefined;

/** The page and its assets, read from the package once and kept in memory. */
export function referencePage(): Promise<ReferencePage> {
  loaded ??= load();
  return loaded;
}

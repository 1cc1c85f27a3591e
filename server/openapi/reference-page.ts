import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type PreparedResponse, prepare, withHeaders } from "../http/prepared.ts";

// The interactive reference at /v1/docs: Swagger UI from the swagger-ui-dist package, served by this
// server from memory. The page and its script name only same-origin paths, relative to /v1/docs so
// the page also works under a path prefix, and its policy forbids loading anything from elsewhere.

/** Where the assets are served, as the page at /v1/docs refers to them. */
const ASSET_PREFIX = "docs/assets/";

// Only what the page uses: no standalone preset, whose top bar would load any URL typed into it.
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

// No validator badge: Swagger UI would send the document to validator.swagger.io to draw it.
// No deep links: Swagger UI puts each one inside the operation's button, a link in a button that
// screen readers and keyboards cannot reach; and the server list gets the name its label lacks.
const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
  new MutationObserver(function () {
    var servers = document.getElementById("servers");
    if (servers && !servers.hasAttribute("aria-label")) servers.setAttribute("aria-label", "Server");
  }).observe(document.getElementById("swagger-ui"), { childList: true, subtree: true });
});
`;

// Swagger UI's own colours give white text on light method badges and grey links below the 4.5:1
// contrast WCAG AA asks of text (axe-core flags them); these darker ones keep its look and pass.
const CONTRAST_CSS = `.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0b5cad; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1a7048; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #a04a00; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b42318; }
.swagger-ui .opblock.opblock-head .opblock-summary-method { background: #6d0fc2; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f6e61; }
.swagger-ui .opblock.opblock-options .opblock-summary-method { background: #0b5cad; }
.swagger-ui .info .title small pre, .swagger-ui .info .title small.version-stamp { background: #3f4652; }
.swagger-ui .info .title small.version-stamp pre { color: #fff; }
.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui .info__license__url a { color: #1a4fc4; }
.swagger-ui .btn.authorize, .swagger-ui .btn.authorize span { color: #1a7048; border-color: #1a7048; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4b5260; }
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Research-Picks API reference</title>
    <link rel="stylesheet" href="${ASSET_PREFIX}swagger-ui.css">
    <link rel="stylesheet" href="${ASSET_PREFIX}contrast.css">
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
  assets.set(
    "contrast.css",
    withHeaders(prepare(Buffer.from(CONTRAST_CSS), CACHE, "text/css; charset=utf-8"), NOSNIFF),
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

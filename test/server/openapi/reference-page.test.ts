import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Parser } from "htmlparser2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor, MODES } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";

// The interactive reference must work with the network unplugged: everything the page names is served
// by this server, and the page's policy lets the browser load nothing from anywhere else.

const PAGE_URL = "http://localhost/v1/docs";

/** Every URL the page's elements refer to (src, href), resolved against the page's address. */
function referencesOf(html: string): URL[] {
  const found: URL[] = [];
  const parser = new Parser({
    onopentag(_name, attributes) {
      for (const name of ["src", "href"]) {
        const value = attributes[name];
        if (value !== undefined) found.push(new URL(value, PAGE_URL));
      }
    },
  });
  parser.write(html);
  parser.end();
  return found;
}

let snapshots: SnapshotCache;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: await mkdtemp(join(tmpdir(), "picks-reference-")) });
});
afterAll(() => snapshots.close());

describe.each(MODES)("GET /v1/docs (%s)", (mode) => {
  let call: Call;
  let close: () => Promise<void>;
  let html: string;
  let policy: string;
  beforeAll(async () => {
    ({ call, close } = await clientFor(mode, await testContext(snapshots)));
    const response = await call("/v1/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    policy = response.headers.get("content-security-policy") ?? "";
    html = await response.text();
  });
  afterAll(() => close());

  it("refers only to this origin, and names the stylesheets, the bundle and its own script", () => {
    const references = referencesOf(html);
    expect(references.map((url) => url.pathname)).toEqual([
      "/v1/docs/assets/swagger-ui.css",
      "/v1/docs/assets/contrast.css",
      "/v1/docs/assets/favicon-32x32.png",
      "/v1/openapi.json",
      "/v1/docs/assets/swagger-ui-bundle.js",
      "/v1/docs/assets/init.js",
    ]);
    expect(references.filter((url) => url.origin !== new URL(PAGE_URL).origin)).toEqual([]);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("serves every file the page refers to, with its type", async () => {
    const types: string[] = [];
    for (const url of referencesOf(html)) {
      const response = await call(url.pathname);
      expect(response.status, url.pathname).toBe(200);
      expect((await response.arrayBuffer()).byteLength, url.pathname).toBeGreaterThan(0);
      types.push(response.headers.get("content-type") ?? "");
    }
    expect(types).toEqual([
      "text/css; charset=utf-8",
      "text/css; charset=utf-8",
      "image/png",
      "application/json",
      "text/javascript; charset=utf-8",
      "text/javascript; charset=utf-8",
    ]);
  });

  it("lets the browser load nothing from another origin", () => {
    const directives = new Map(
      policy.split(";").map((directive) => {
        const [name = "", ...sources] = directive.trim().split(/\s+/);
        return [name, sources] as const;
      }),
    );
    expect(directives.get("default-src")).toEqual(["'self'"]);
    for (const [name, sources] of directives) {
      expect(
        sources.filter((source) => !/^'[\w-]+'$|^data:$/.test(source)),
        name,
      ).toEqual([]);
    }
  });

  it("starts Swagger UI on this server's document, without the validator that would call out", async () => {
    const script = await (await call("/v1/docs/assets/init.js")).text();
    expect(script).toContain('url: "openapi.json"');
    expect(script).toContain("validatorUrl: null");
    expect(script).not.toMatch(/https?:\/\//);
    const css = await (await call("/v1/docs/assets/swagger-ui.css")).text();
    expect(css).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//);
  });

  it("answers 304 for a current copy and 404 for an asset it does not have", async () => {
    const first = await call("/v1/docs/assets/swagger-ui-bundle.js");
    const again = await call("/v1/docs/assets/swagger-ui-bundle.js", {
      headers: { "if-none-match": first.headers.get("etag") ?? "" },
    });
    expect(again.status).toBe(304);
    for (const path of ["/v1/docs/assets/swagger-ui.js.map", "/v1/docs/assets/..%2Fpackage.json"]) {
      const missing = await call(path);
      expect(missing.status, path).toBe(404);
      expect(await missing.text()).toBe('{"detail":"Not Found"}');
    }
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  scarfSettings?: { enabled?: boolean };
  allowScripts?: Record<string, boolean>;
};

describe("installing the project reports to nobody (regression: issue 15, item 8)", () => {
  // swagger-ui-dist depends on @scarf/scarf, whose install script phones home unless the root
  // package opts out; its report.js reads exactly this setting.
  it("opts out of Scarf's install-time analytics in package.json", () => {
    expect(manifest.scarfSettings?.enabled).toBe(false);
  });

  // npm 11 runs a dependency's install script only when `allowScripts` approves it: Scarf's is
  // denied outright, and the one native build the service needs is approved by name.
  it("denies Scarf's install script and approves only the builds the service needs", () => {
    expect(manifest.allowScripts).toEqual({ "better-sqlite3": true, esbuild: true, "@scarf/scarf": false });
  });
});

import { cp, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEED_CHANNELS } from "../../../pipeline/domain/feed-channels.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";

// public/_headers gives static hosts (Netlify, Cloudflare Pages) the headers `picks serve` sends: a
// page served from a CDN must not lose its policy, its framing ban or nosniff.

const PUBLIC = fileURLToPath(new URL("../../../public", import.meta.url));

interface Rule {
  pattern: string;
  headers: Array<[string, string]>;
}

/** The `_headers` format: a path line, then indented `Name: value` lines; `#` starts a comment. */
function parseHeadersFile(text: string): Rule[] {
  const rules: Rule[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    if (!/^\s/.test(line)) {
      rules.push({ pattern: line.trim(), headers: [] });
      continue;
    }
    const colon = line.indexOf(":");
    const rule = rules.at(-1);
    if (!rule || colon === -1) throw new Error(`Expected a header line under a path, got \`${line}\``);
    rule.headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return rules;
}

/** A path matches an exact pattern or, with a trailing splat, any path under its prefix. */
const matches = (pattern: string, path: string) =>
  pattern.endsWith("*") ? path.startsWith(pattern.slice(0, -1)) : pattern === path;

/** Every value each header gets for `path`: a host applies all matching rules. */
function headersFor(rules: Rule[], path: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const rule of rules.filter((candidate) => matches(candidate.pattern, path))) {
    for (const [name, value] of rule.headers) found.set(name, [...(found.get(name) ?? []), value]);
  }
  return found;
}

let rules: Rule[];
let snapshots: SnapshotCache;
let call: Call;
let close: () => Promise<void>;
beforeAll(async () => {
  rules = parseHeadersFile(await readFile(join(PUBLIC, "_headers"), "utf8"));
  const publicDir = await mkdtemp(join(tmpdir(), "picks-headers-"));
  await cp(join(PUBLIC, "index.html"), join(publicDir, "index.html"));
  await cp(join(PUBLIC, "assets"), join(publicDir, "assets"), { recursive: true });
  snapshots = await createSnapshotCache({ publicDir });
  ({ call, close } = await clientFor("real port", await testContext(snapshots)));
});
afterAll(async () => {
  await close();
  snapshots.close();
});

describe("public/_headers", () => {
  it.each([
    "/",
    "/index.html",
    "/assets/app.js",
    "/feed.xml",
    "/v1/daily/latest.json",
    "/v1/daily/2026-11-20.json",
  ])("sends nosniff once for %s", (path) => {
    expect(headersFor(rules, path).get("x-content-type-options")).toEqual(["nosniff"]);
  });

  it.each(["/", "/index.html"])("gives %s the policy and referrer policy the server sends", async (path) => {
    const served = await call(path);
    expect(served.status).toBe(200);
    const policy = served.headers.get("content-security-policy");
    expect(policy).toContain("frame-ancestors 'none'");
    const onHost = headersFor(rules, path);
    expect(onHost.get("content-security-policy")).toEqual([policy]);
    expect(onHost.get("referrer-policy")).toEqual([served.headers.get("referrer-policy")]);
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it.each(
    FEED_CHANNELS.flatMap((channel) => [
      [`/${channel.atomFile}`, "application/atom+xml"],
      [`/${channel.jsonFile}`, "application/feed+json"],
    ]),
  )("types and caches %s as the server does", async (path, type) => {
    const onHost = headersFor(rules, path);
    expect(onHost.get("content-type")).toEqual([type]);
    expect(onHost.get("cache-control")).toEqual(["public, max-age=300"]);
  });

  it("keeps the page's policy off the API files", () => {
    expect(headersFor(rules, "/v1/recent.json").has("content-security-policy")).toBe(false);
  });

  it("has no line a static host would drop (Cloudflare: 2,000 characters)", async () => {
    const text = await readFile(join(PUBLIC, "_headers"), "utf8");
    for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(2000);
  });
});

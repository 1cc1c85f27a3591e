import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEED_CHANNELS } from "../../../pipeline/domain/feed-channels.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { MODES, useClient } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";

const PROJECT_PUBLIC = fileURLToPath(new URL("../../../public", import.meta.url));

let publicDir: string;
let snapshots: SnapshotCache;

beforeAll(async () => {
  ({ publicDir } = await publishSampleDays());
  await cp(join(PROJECT_PUBLIC, "index.html"), join(publicDir, "index.html"));
  await cp(join(PROJECT_PUBLIC, "assets"), join(publicDir, "assets"), { recursive: true });
  // Files that exist under public/ but are not part of the site: none of them may be served.
  await writeFile(join(publicDir, "assets", ".env.js"), "secret");
  await writeFile(join(publicDir, "assets", "notes.md"), "not a served type");
  await writeFile(join(publicDir, "private.txt"), "outside assets");
  await mkdir(join(publicDir, "assets", "deep"), { recursive: true });
  await writeFile(join(publicDir, "assets", "deep", "x.css"), "a{}");
  snapshots = await createSnapshotCache({ publicDir });
});
afterAll(() => snapshots.close());

describe.each(MODES)("the static site from picks serve (%s)", (mode) => {
  const call = useClient(mode, () => testContext(snapshots));

  it.each([
    ["/", "index.html", "text/html; charset=utf-8", "no-cache"],
    ["/index.html", "index.html", "text/html; charset=utf-8", "no-cache"],
    ["/assets/app.js", "assets/app.js", "text/javascript; charset=utf-8", "no-cache"],
    ["/assets/style.css", "assets/style.css", "text/css; charset=utf-8", "no-cache"],
    ["/assets/icon.svg", "assets/icon.svg", "image/svg+xml", "no-cache"],
    ["/assets/deep/x.css", "assets/deep/x.css", "text/css; charset=utf-8", "no-cache"],
    ["/feed.xml", "feed.xml", "application/atom+xml; charset=utf-8", "public, max-age=300"],
    ["/feed.json", "feed.json", "application/feed+json", "public, max-age=300"],
    [
      "/feed-governance.xml",
      "feed-governance.xml",
      "application/atom+xml; charset=utf-8",
      "public, max-age=300",
    ],
    ["/feed-reg-fit-3.json", "feed-reg-fit-3.json", "application/feed+json", "public, max-age=300"],
  ])("GET %s sends %s as %s", async (path, file, type, cache) => {
    const response = await call(path, { headers: { "accept-encoding": "identity" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(type);
    expect(response.headers.get("cache-control")).toBe(cache);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("etag")).toMatch(/^"[\w-]{27}"$/);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(await readFile(join(publicDir, file)));
  });

  it("sends the page with a policy that allows only the site's own files", async () => {
    const response = await call("/?date=2026-11-19");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toMatch(
      /default-src 'self'.*frame-ancestors 'none'/,
    );
  });

  it("answers 304 to a matching If-None-Match and HEAD without a body", async () => {
    const etag = (await call("/feed.xml")).headers.get("etag") as string;
    const again = await call("/feed.xml", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const head = await call("/assets/app.js", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it.each([
    "/assets/.env.js",
    "/assets/notes.md",
    "/private.txt",
    "/assets/",
    "/assets/missing.js",
    "/assets/..%2fprivate.txt",
    "/assets/%2e%2e/private.txt",
    "/assets/..%2f..%2fetc%2fpasswd",
    "/v1/daily/2026-11-20.json",
  ])("GET %s is a 404 or 422, never a file", async (path) => {
    const response = await call(path);
    expect([404, 422]).toContain(response.status);
    expect(response.headers.get("content-type")).toBe("application/json");
  });

  it("answers other methods with 405 and Allow", async () => {
    const response = await call("/", { method: "POST" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("a feed rewritten by picks curate", () => {
  it("is served anew without a restart", async () => {
    const watched = await createSnapshotCache({ publicDir, watch: true });
    try {
      const before = watched.lookup("/feed.json")?.etag;
      await writeFile(
        join(publicDir, "feed.json"),
        '{"version":"https://jsonfeed.org/version/1.1","items":[]}',
      );
      const deadline = Date.now() + 5000;
      while (watched.lookup("/feed.json")?.etag === before && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(watched.lookup("/feed.json")?.etag).not.toBe(before);
    } finally {
      watched.close();
    }
  });
});

describe("the page's feed links", () => {
  it("lists every feed as <link rel=alternate> with its type, and in the footer", async () => {
    const page = await readFile(join(PROJECT_PUBLIC, "index.html"), "utf8");
    for (const channel of FEED_CHANNELS) {
      expect(page).toMatch(
        new RegExp(
          `<link rel="alternate" type="application/atom\\+xml" title="[^"]+" href="${channel.atomFile}">`,
        ),
      );
      expect(page).toMatch(
        new RegExp(
          `<link rel="alternate" type="application/feed\\+json" title="[^"]+" href="${channel.jsonFile}">`,
        ),
      );
      expect(page).toContain(`<a href="${channel.atomFile}">Atom</a>`);
      expect(page).toContain(`<a href="${channel.jsonFile}">JSON Feed</a>`);
    }
  });
});

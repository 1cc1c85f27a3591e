import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { clientFor, MODES, useClient } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishFixtureDays } from "../../helpers/published.ts";

let publicDir: string;
let snapshots: SnapshotCache;

beforeAll(async () => {
  ({ publicDir } = await publishFixtureDays());
  snapshots = await createSnapshotCache({ publicDir });
});
afterAll(() => snapshots.close());

describe.each(MODES)("public read routes (%s)", (mode) => {
  const call = useClient(mode, () => testContext(snapshots));

  it.each([
    ["/v1/daily/latest", "daily/2026-06-25.json"],
    ["/v1/daily/2026-06-12", "daily/2026-06-12.json"],
    ["/v1/recent", "recent.json"],
    ["/v1/stats", "stats.json"],
    ["/v1/axes", "axes.json"],
  ])("GET %s sends the published file's bytes with an ETag", async (path, file) => {
    // The file's own bytes and the ETag a CDN computes for them (compressed forms: encoding.test.ts).
    const response = await call(path, { headers: { "accept-encoding": "identity" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toMatch(/^public, max-age=\d+$/);
    expect(response.headers.get("etag")).toMatch(/^"[\w-]{27}"$/);
    expect(await response.text()).toBe(await readFile(join(publicDir, "v1", file), "utf8"));
  });

  it("answers 304 to a matching If-None-Match, and 200 to a stale one", async () => {
    const first = await call("/v1/daily/2026-06-12");
    const etag = first.headers.get("etag") as string;
    const again = await call("/v1/daily/2026-06-12?ignored=1", {
      headers: { "if-none-match": `"old", ${etag}` },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
    const stale = await call("/v1/daily/2026-06-12", { headers: { "if-none-match": '"old"' } });
    expect(stale.status).toBe(200);
  });

  it("answers HEAD with headers and no body", async () => {
    const response = await call("/v1/daily/latest", { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toBeTruthy();
    expect(await response.text()).toBe("");
  });

  it("reports health", async () => {
    const response = await call("/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "ok",
      version: "0.1.0",
      latest_snapshot: "2026-06-25",
      store: { kind: "memory", reachable: true },
      snapshots: {
        kind: "folder",
        origin: "folder",
        last_poll_at: null,
        manifest_newest_day: null,
        stale_seconds: null,
        problem: null,
        refused: [],
        publish: null,
      },
      skipped_days: [],
      circuits: {},
    });
    expect((await call("/health", { method: "HEAD" })).status).toBe(200);
  });

  it.each([
    ["2026-13-01", "month value is outside expected range of 1-12"],
    ["2026-02-30", "day value is outside expected range"],
    ["yesterday", "input is too short"],
    ["2026-06-12.json", "unexpected extra characters at the end of the input"],
    ["%ZZ", "input is too short"],
  ])("a malformed or impossible date %j is FastAPI's 422", async (date, why) => {
    const response = await call(`/v1/daily/${date}`);
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe(
      JSON.stringify({
        detail: [
          {
            type: "date_from_datetime_parsing",
            loc: ["path", "date"],
            msg: `Input should be a valid date or datetime, ${why}`,
            input: date === "%ZZ" ? "%ZZ" : date,
          },
        ],
      }),
    );
  });

  it("a real day with no snapshot is 404 with a detail", async () => {
    const response = await call("/v1/daily/2026-06-13");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "No snapshot for 2026-06-13" });
  });

  it.each([
    "/",
    "/v1",
    "/v1/daily",
    "/v2/daily/latest",
    "/v1/daily/latest/x",
    "/v1/papers%00",
    "/..%2f..%2fetc/passwd",
  ])("an unknown path %j is 404 Not Found", async (path) => {
    const response = await call(path);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('{"detail":"Not Found"}');
  });

  it.each(["POST", "PUT", "DELETE", "PATCH"])("%s on a read route is 405 with Allow", async (method) => {
    for (const path of ["/v1/daily/latest", "/v1/daily/2026-06-12", "/health"]) {
      const response = await call(path, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, HEAD");
      expect(await response.text()).toBe('{"detail":"Method Not Allowed"}');
    }
  });
});

describe("the rate of reads of days not held in memory", () => {
  it("names its own window in its 429", async () => {
    // Every day read as one not held, so each read counts; a still clock, so the hour cannot end between them.
    const unheld: SnapshotCache = {
      ...snapshots,
      lookup: (pathname) => (pathname.startsWith("/v1/daily/2") ? undefined : snapshots.lookup(pathname)),
    };
    const context = await testContext(unheld, {
      now: () => Date.parse("2026-11-29T12:00:30Z"),
      config: { oldDayRate: { name: "old-days", limit: 1, windowSeconds: 3600 } },
    });
    const { call, close } = await clientFor("in-process", context);
    try {
      expect((await call("/v1/daily/2026-06-12")).status).toBe(200);
      const refused = await call("/v1/daily/2026-06-25");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("ratelimit-policy")).toBe('"old-days";q=1;w=3600');
      expect(((await refused.json()) as { detail: string }).detail).toMatch(
        /^Too many reads of days older than the ones held in memory: at most 1 per hour per client address\. Retry after \d+ seconds/,
      );
    } finally {
      await close();
    }
  });
});

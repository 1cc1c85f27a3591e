import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKey } from "../../../server/access/key-format.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import { clientFor, MODES, postJson, useClient } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";

let snapshots: SnapshotCache;
beforeAll(async () => {
  const { publicDir } = await publishSampleDays();
  snapshots = await createSnapshotCache({ publicDir });
});
afterAll(() => snapshots.close());

const KEY_FORM = /^rp_labs_[0-9A-Za-z]{36}$/;

/** The key with its last checksum character changed (to another one, always: "0" becomes "1"). */
const withWrongChecksum = (key: string) => `${key.slice(0, -1)}${key.endsWith("0") ? "1" : "0"}`;

describe.each(MODES)("POST /v1/keys and authentication (%s)", (mode) => {
  const call = useClient(mode, () => testContext(snapshots));

  it("issues a free key once, then refuses the same address for 24 hours", async () => {
    const response = await call(
      "/v1/keys",
      postJson({ email: "ada@example.org", label: "reader" }, { ip: "192.0.2.1" }),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const issued = (await response.json()) as Record<string, unknown>;
    expect(issued).toMatchObject({
      tier: "free",
      limits: { calls_per_window: 100, window_days: 30, history_days: 7, max_limit: 25 },
    });
    expect(issued.key).toMatch(KEY_FORM);
    expect(issued.key_id).toMatch(/^key_[0-9a-f]{16}$/);

    const again = await call(
      "/v1/keys",
      postJson({ email: "ada@example.org", label: "second" }, { ip: "192.0.2.1" }),
    );
    expect(again.status).toBe(429);
    const retryAfter = Number(again.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(again.headers.get("ratelimit-policy")).toBe('"keys";q=1;w=86400');
    expect(((await again.json()) as { detail: string }).detail).toMatch(
      /already received a key in the last 24 hours; try again after \d{4}-/,
    );
  });

  it.each([
    [
      { label: "x" },
      [{ type: "missing", loc: ["body", "email"], msg: "Field required", input: { label: "x" } }],
    ],
    [
      { email: "ab", label: "x" },
      [
        {
          type: "string_too_short",
          loc: ["body", "email"],
          msg: "String should have at least 3 characters",
          input: "ab",
          ctx: { min_length: 3 },
        },
      ],
    ],
    [
      { email: 123, label: "" },
      [
        { type: "string_type", loc: ["body", "email"], msg: "Input should be a valid string", input: 123 },
        {
          type: "string_too_short",
          loc: ["body", "label"],
          msg: "String should have at least 1 character",
          input: "",
          ctx: { min_length: 1 },
        },
      ],
    ],
    [
      [1, 2],
      [
        {
          type: "model_attributes_type",
          loc: ["body"],
          msg: "Input should be a valid dictionary or object to extract fields from",
          input: [1, 2],
        },
      ],
    ],
  ])("refuses the body %j with FastAPI's 422", async (body, detail) => {
    const response = await call("/v1/keys", postJson(body, { ip: "192.0.2.50" }));
    expect(response.status).toBe(422);
    expect(await response.text()).toBe(JSON.stringify({ detail }));
  });

  it("refuses a body that is not JSON, and one over 1 MiB", async () => {
    const broken = await call("/v1/keys", postJson('{"email": ', { ip: "192.0.2.51" }));
    expect(broken.status).toBe(422);
    expect(((await broken.json()) as { detail: Array<{ type: string }> }).detail[0]?.type).toBe(
      "json_invalid",
    );
    const huge = await call(
      "/v1/keys",
      postJson({ email: "a@b.c", label: "x".repeat(1_100_000) }, { ip: "192.0.2.52" }),
    );
    expect(huge.status).toBe(413);
  });

  it.each([
    ["no key", {}, "Missing API key."],
    ["a malformed key", { "x-api-key": "rp_labs_short" }, "Malformed API key"],
    ["a key with a wrong checksum", { "x-api-key": withWrongChecksum(generateKey()) }, "Malformed API key"],
    ["a well-formed unknown key", { "x-api-key": generateKey() }, "Unknown API key."],
  ])("answers %s with 401 and how to get a key", async (_name, headers, start) => {
    for (const path of ["/v1/papers", "/v1/papers/2210.03629", "/v1/me"]) {
      const response = await call(path, { headers });
      expect(response.status).toBe(401);
      const { detail } = (await response.json()) as { detail: string };
      expect(detail.startsWith(start)).toBe(true);
      expect(detail).toContain("POST /v1/keys");
    }
  });

  it("refuses a key in the query string", async () => {
    const response = await call(`/v1/papers?api_key=${generateKey()}`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { detail: string }).detail).toContain(
      "not accepted in the query string",
    );
  });
});

describe("revocation and rotation", () => {
  it("refuses a revoked key at once, and a rotated key's replacement works", async () => {
    const context = await testContext(snapshots);
    const { call } = await clientFor("in-process", context);
    const { key, record } = await context.keys.issue({
      tier: "pro",
      email: "r@example.org",
      label: "rotating",
    });
    const me = () => call("/v1/me", { headers: { "x-api-key": key } });
    expect((await me()).status).toBe(200);
    const rotated = await context.keys.rotate(record.id);
    expect(rotated?.old.replaced_by).toBe(rotated?.record.id);
    const refused = await me();
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/^This API key has been revoked\./);
    const fresh = await call("/v1/me", { headers: { "x-api-key": rotated?.key ?? "" } });
    expect(fresh.status).toBe(200);
    expect(await fresh.json()).toMatchObject({ tier: "pro", label: "rotating" });
    await context.keys.revoke(rotated?.key ?? "");
    expect((await call("/v1/me", { headers: { "x-api-key": rotated?.key ?? "" } })).status).toBe(401);
  });
});

describe("a key revoked by another process", () => {
  it("stops working within the cache period even while it is used all the time", async () => {
    let now = Date.parse("2026-11-20T10:00:00Z");
    // The store shared by the two processes runs on their clock, as the test context's own store does.
    const store = await createMemoryStore({ clock: () => now });
    const serving = await testContext(snapshots, { store, now: () => now });
    const operator = await testContext(snapshots, { store, now: () => now });
    const { key } = await serving.keys.issue({ tier: "pro", email: "x@example.org", label: "busy" });
    expect((await serving.keys.authenticate(key)).ok).toBe(true);
    await operator.keys.revoke(key);
    const seen: boolean[] = [];
    for (let second = 1; second <= 8; second++) {
      now += 1000;
      seen.push((await serving.keys.authenticate(key)).ok);
    }
    expect(seen.indexOf(false)).toBeGreaterThan(-1);
    expect(seen.indexOf(false)).toBeLessThanOrEqual(5);
    expect(seen.slice(seen.indexOf(false)).every((ok) => !ok)).toBe(true);
  });
});

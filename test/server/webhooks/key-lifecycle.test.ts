import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearOfWindowEnd } from "../../helpers/clock-window.ts";
import { LISTING_250 } from "../../helpers/fixtures.ts";
import { runPicks } from "../../helpers/processes.ts";
import { waitFor } from "../submissions/helpers.ts";
import { type PicksChild, serveSampleOnSqlite, stopPicks } from "../submissions/picks-process.ts";
import { createEndpoint, issuePaidKey, type Receiver, startReceiver } from "./receiver.ts";

// Regressions, from outside: endpoints of a revoked key kept receiving events, a rotated key lost its
// endpoints to the old one, tests and retries were unlimited, and an unkeyed POST /v1/webhooks learned
// the body's 413/422 before its 401. A real `picks serve` and a receiver on loopback.

const ENV = {
  WEBHOOK_ALLOW_LOOPBACK: "1",
  WEBHOOK_POLL_MS: "100",
  WORKER_POLL_MS: "100",
  WEBHOOK_ENDPOINT_ACTION_RATE_LIMIT: "3",
  WEBHOOK_ACTION_RATE_LIMIT: "5",
};

let receiver: Receiver;
let server: PicksChild;
let site: { publicDir: string; runsDir: string };
let env: Record<string, string>;

beforeAll(async () => {
  receiver = await startReceiver();
  ({ server, env, site } = await serveSampleOnSqlite(ENV, "hook-keys"));
}, 60_000);
afterAll(async () => {
  await stopPicks([server]);
  await receiver?.close();
});

const api = (path: string, key: string | null, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}), ...init.headers },
  });
const picks = (args: string[]) => runPicks(args, { ...process.env, ...env });

describe("webhooks follow their key", () => {
  it("skips a revoked key's endpoints, moves a rotated key's, and says how many", async () => {
    const revokedKey = await issuePaidKey(env);
    const rotatedKey = await issuePaidKey(env);
    const otherKey = await issuePaidKey(env);
    await createEndpoint(server.url as string, revokedKey, receiver, "/revoked", ["daily.published"]);
    const moved = await createEndpoint(server.url as string, rotatedKey, receiver, "/rotated", [
      "daily.published",
    ]);
    await createEndpoint(server.url as string, otherKey, receiver, "/other", ["daily.published"]);

    const revoked = await picks(["keys", "revoke", revokedKey]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain("Disabled its 1 webhook endpoint(s): they receive no more events.");
    const rotated = await picks(["keys", "rotate", rotatedKey]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain("Moved its 1 webhook endpoint(s) to the new key.");
    const freshKey = rotated.stdout.split("\n")[0] as string;

    // The new key owns the endpoint: it lists it, reads it, rotates its secret.
    const listed = (await (await api("/v1/webhooks", freshKey)).json()) as {
      webhooks: Array<{ id: string }>;
    };
    expect(listed.webhooks.map((hook) => hook.id)).toEqual([moved.id]);
    const secret = await api(`/v1/webhooks/${moved.id}/rotate-secret`, freshKey, { method: "POST" });
    expect(secret.status).toBe(200);
    receiver.secrets.set("/rotated", ((await secret.json()) as { secret: string }).secret);

    const done = await picks([
      "curate",
      "--source",
      `file:${LISTING_250}`,
      "--date",
      "2026-11-23",
      "--no-citations",
      "--out",
      site.publicDir,
      "--runs",
      site.runsDir,
    ]);
    expect(done.code, done.stderr).toBe(0);
    for (const path of ["/other", "/rotated"]) {
      await waitFor(async () => receiver.of(path, "daily.published").length > 0 || null, 5_000, path);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.received.filter((r) => r.path === "/revoked")).toEqual([]);
  }, 60_000);
});

describe("tests and retries have a per-endpoint and a per-key rate", () => {
  it("sends at most 3 per endpoint and 5 per key in the hour, then 429 with Retry-After", async () => {
    const key = await issuePaidKey(env);
    const first = await createEndpoint(server.url as string, key, receiver, "/rated-1", ["daily.published"]);
    const second = await createEndpoint(server.url as string, key, receiver, "/rated-2", ["daily.published"]);
    const test = (id: string) => api(`/v1/webhooks/${id}/test`, key, { method: "POST" });
    // The rates' hour is a fixed window of the server's real clock: it must not end between these calls.
    await clearOfWindowEnd(3600, 10_000);

    const accepted = [await test(first.id), await test(first.id), await test(first.id)];
    expect(accepted.map((answer) => answer.status)).toEqual([202, 202, 202]);
    expect(accepted[2]?.headers.get("ratelimit")).toMatch(
      /^"webhook-actions";r=2;t=\d+, "webhook-endpoint-actions";r=0;t=\d+$/,
    );
    const perEndpoint = await test(first.id);
    expect(perEndpoint.status).toBe(429);
    expect(Number(perEndpoint.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(perEndpoint.headers.get("ratelimit-policy")).toBe('"webhook-endpoint-actions";q=3;w=3600');
    expect(await perEndpoint.json()).toEqual({
      detail: expect.stringMatching(
        new RegExp(`^Too many tests and retries of webhook ${first.id}: at most 3 per hour`),
      ),
    });

    const delivery = ((await accepted[0]?.json()) as { delivery_id: string }).delivery_id;
    const retry = await api(`/v1/webhooks/${first.id}/deliveries/${delivery}/retry`, key, { method: "POST" });
    expect(retry.status).toBe(429);

    expect([(await test(second.id)).status, (await test(second.id)).status]).toEqual([202, 202]);
    const perKey = await test(second.id);
    expect(perKey.status).toBe(429);
    expect(perKey.headers.get("ratelimit-policy")).toBe('"webhook-actions";q=5;w=3600');

    await waitFor(
      async () => (receiver.received.filter((r) => r.path.startsWith("/rated-")).length >= 5 ? true : null),
      5_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((r) => r.path.startsWith("/rated-"))).toHaveLength(5);
  }, 30_000);
});

describe("POST /v1/webhooks checks the key first", () => {
  it("answers 401 to an unkeyed request whatever its body", async () => {
    for (const body of ["x".repeat(100_000), '{"url": 1}', "{"]) {
      const answer = await api("/v1/webhooks", null, { method: "POST", body });
      expect(answer.status).toBe(401);
    }
  });
});

// The fast routes against the router, live and byte for byte, as h3's own tests run each case through
// both entries. Two servers over the same snapshots, each with its own memory store on one fixed
// clock: `listen` as in production (the fast routes first) and `listen` with no fast route (every
// request through the h3 app). Each generated call goes to both, with the same key, and the status,
// the headers and the body bytes must be equal. The calls: the golden ones of POST /mcp and
// POST /v1/verify (../golden/golden-calls.ts), and GET /v1/papers ones generated below.

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyRecord } from "../../../server/access/key-service.ts";
import type { AppContext } from "../../../server/context.ts";
import { FAST_ROUTES, fastRouteOf } from "../../../server/http/fast-routes.ts";
import { listen, type RunningServer } from "../../../server/http/listen.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { callHeaders, goldenContext, sendRaw } from "../../helpers/golden-client.ts";
import { publishSampleDays } from "../../helpers/published.ts";
import { type GoldenCall, goldenCalls, type Tier } from "../golden/golden-calls.ts";

/** Headers that describe the moment or the connection, not the answer. */
const VOLATILE = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

/** GET /v1/papers calls: query texts FastAPI reads in odd ways included, and every kind of key. */
function papersCalls(): GoldenCall[] {
  const value = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -2, max: 60 }).map(String) },
    fc.constantFrom("3650", "5000", "99999", "1e400", "1.5", "", "x", "%31", "+3", "%203", "%D9%A3", "0x10"),
  );
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom("days", "limit", "min_score", "min_reg_fit", "axis") },
    fc.constantFrom("?days", "DAYS", "api_key", "token", "unknown", "days[]", "%64ays", ""),
  );
  const pair = fc.oneof(
    { weight: 5, arbitrary: fc.tuple(name, value).map(([n, v]) => `${n}=${v}`) },
    fc.constantFrom("axis=A1", "axis=A10", "axis=REG", "days", "=", "&", "?", "days=1=2"),
  );
  const query = fc.oneof(
    fc.constant(""),
    fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => `?${pairs.join("&")}`),
    fc.array(pair, { minLength: 1, maxLength: 2 }).map((pairs) => `??${pairs.join("&")}`),
  );
  const auth = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .constantFrom<Tier>("free", "pro", "team", "enterprise")
        .map((tier) => ({ kind: "key" as const, tier, via: "x-api-key" as const })),
    },
    fc.constant({ kind: "none" as const }),
    fc.constant({ kind: "unknown-key" as const, via: "x-api-key" as const }),
    fc.constant({ kind: "literal" as const, header: "x-api-key", value: "rp_labs_short" }),
  );
  return fc.sample(fc.tuple(query, auth), { seed: 49, numRuns: 160 }).map(([text, keyed], at) => ({
    label: `papers ${at}`,
    method: "GET" as const,
    path: `/v1/papers${text}`,
    headers: {},
    auth: keyed,
  }));
}

/** One request on its own connection: status, sorted header pairs, body bytes as base64. */
async function send(url: string, call: GoldenCall, headers: Record<string, string>) {
  const answer = await sendRaw(url, call, headers, VOLATILE);
  return { ...answer, body: answer.body.toString("base64") };
}

const calls = [...papersCalls(), ...goldenCalls()];
let snapshots: SnapshotCache;
let fast: { context: AppContext; running: RunningServer };
let routed: { context: AppContext; running: RunningServer };

async function server(fastRoutes: typeof FAST_ROUTES) {
  const context = await goldenContext(snapshots);
  return { context, running: await listen(context, { port: 0, host: "127.0.0.1", fastRoutes }) };
}

/** A key issued by the fast server's service and stored as is in the routed server's store. */
async function issueInBoth(tier: Tier): Promise<string> {
  const { key, record } = await fast.context.keys.issue({ tier, email: "ab@example.org", label: "ab" });
  const copy = (stored: KeyRecord) => routed.context.store.setItem(`apikey:${stored.hash}`, stored);
  await copy(record);
  await routed.context.store.setItem(`apikeyid:${record.id}`, record.hash);
  return key;
}

beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
  fast = await server(FAST_ROUTES);
  routed = await server([]);
});

afterAll(async () => {
  await fast?.running.close();
  await routed?.running.close();
  snapshots?.close();
});

describe("each fast route answers as its route, byte for byte", () => {
  it("covers every fast route, mostly through the fast route itself", () => {
    for (const route of FAST_ROUTES) {
      const mine = calls.filter((call) => fastRouteOf({ method: call.method, url: call.path }) === route);
      expect(mine.length, route.path).toBeGreaterThan(100);
    }
  });

  it("gives the same status, headers and bytes for every generated call", async () => {
    const groups = new Map<string, string>();
    // One at a time, in order: the calls of a group spend one key's quota in sequence, on both servers.
    for (const call of calls) {
      const headers = await callHeaders(call, groups, issueInBoth, fast.context.config.keyPrefix);
      const expected = await send(routed.running.url, call, headers);
      const actual = await send(fast.running.url, call, headers);
      expect(actual, `${call.label}: ${call.method} ${call.path}`).toEqual(expected);
    }
  }, 120_000);
});

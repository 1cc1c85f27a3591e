import { request } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listen, type RunningServer } from "../../../server/http/listen.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";

// The query text as FastAPI reads it (Starlette's `parse_qsl` of everything after the first "?"), on
// both paths: the keyed fast route and the h3 route, taken when the target is not written plainly
// (here with a fragment). In `/v1/papers??days=1` the name is `?days`, unknown and so ignored.

let snapshots: SnapshotCache;
let running: RunningServer;
let key: string;

beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
  const context = await testContext(snapshots);
  key = (await context.keys.issue({ tier: "enterprise", email: "q@example.org", label: "q" })).key;
  running = await listen(context, { port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await running.close();
  snapshots.close();
});

/** GET of a raw request target (fetch would drop a fragment); the answer's `applied.days`. */
function appliedDays(target: string): Promise<number> {
  const { port } = new URL(running.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: target, headers: { "x-api-key": key } }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve((JSON.parse(body) as { applied: { days: number } }).applied.days));
    });
    req.on("error", reject);
    req.end();
  });
}

it("reads the text after the first ? as FastAPI does, on the fast route and the router alike", async () => {
  const unfiltered = await appliedDays("/v1/papers#f");
  expect(unfiltered).toBeGreaterThan(3);
  expect(await appliedDays("/v1/papers")).toBe(unfiltered);
  for (const target of ["/v1/papers??days=1", "/v1/papers??days=3"]) {
    expect(await appliedDays(target)).toBe(unfiltered);
    expect(await appliedDays(`${target}#f`)).toBe(unfiltered);
  }
  // Only the first "?" starts the text: a later one is part of a name, and `?days` is not `days`.
  expect(await appliedDays("/v1/papers?days=2&?days=1")).toBe(2);
  expect(await appliedDays("/v1/papers?days=2&?days=1#f")).toBe(2);
  expect(await appliedDays("/v1/papers?days=2")).toBe(2);
  expect(await appliedDays("/v1/papers?days=2#f")).toBe(2);
});

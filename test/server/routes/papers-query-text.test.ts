import { request } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listen, type RunningServer } from "../../../server/http/listen.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";

// A query's validation is remembered by its text. The keyed fast path and the h3 route (taken when
// the target is not written plainly, e.g. with a fragment) must still each read a text as they
// always did, whichever of them saw it first: a text starting with "?" is read two ways.

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

it("reads ?days=1 after a second ? the way each path always has, whichever saw it first", async () => {
  const unfiltered = await appliedDays("/v1/papers#f");
  // The fast path reads the text with `new URLSearchParams`, which drops its leading "?"; the route
  // reads the URL's searchParams, for which "?days" is an unknown name.
  expect(await appliedDays("/v1/papers??days=1")).toBe(1);
  expect(await appliedDays("/v1/papers??days=1#f")).toBe(unfiltered);
  expect(await appliedDays("/v1/papers??days=3#f")).toBe(unfiltered);
  expect(await appliedDays("/v1/papers??days=3")).toBe(3);
  // Plain texts read the same on both paths, remembered or not.
  expect(await appliedDays("/v1/papers?days=2")).toBe(2);
  expect(await appliedDays("/v1/papers?days=2#f")).toBe(2);
});

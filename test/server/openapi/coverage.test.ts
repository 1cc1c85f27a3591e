import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../server/http/app.ts";
import type { RouteMethods } from "../../../server/http/route-table.ts";
import { METRICS_OFF } from "../../../server/metrics/metrics-settings.ts";
import { documentedPaths } from "../../../server/routes/docs-routes.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { testContext } from "../../helpers/context.ts";
import { CATCH_ALL_ROUTE, UNDESCRIBED_ROUTES } from "../../helpers/contract.ts";

// A route added without its operation in the document fails here, as does a documented path the app
// no longer registers, or a method that one has and the other has not.

let snapshots: SnapshotCache;
let registered: Map<string, readonly string[]>;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: await mkdtemp(join(tmpdir(), "picks-routes-")) });
  // With every route an operator can turn on: /metrics on the main port behind METRICS_TOKEN.
  const metrics = { ...METRICS_OFF, token: "coverage-metrics-token-0123" };
  const app = createApp(await testContext(snapshots, { config: { metrics } }));
  registered = new Map(
    app["~routes"].map((entry) => [
      entry.route ?? "",
      (entry.meta as RouteMethods | undefined)?.methods ?? [],
    ]),
  );
});
afterAll(() => snapshots.close());

const documentedMethods = (doc: (typeof documentedPaths)[number]): string[] => [
  ...(doc.get ? ["GET", "HEAD"] : []),
  ...(doc.post ? ["POST"] : []),
  ...(doc.put ? ["PUT"] : []),
  ...(doc.delete ? ["DELETE"] : []),
];

describe("the OpenAPI document and the app's routes", () => {
  it("describes every route the app registers, with the methods it takes", () => {
    const described = new Map(
      documentedPaths.flatMap((doc) => [doc.route, ...(doc.aliases ?? [])].map((route) => [route, doc])),
    );
    const undescribed: string[] = [];
    for (const [route, methods] of registered) {
      if (route === CATCH_ALL_ROUTE || UNDESCRIBED_ROUTES.includes(route)) continue;
      const doc = described.get(route);
      if (!doc) undescribed.push(route);
      else expect([...methods].sort(), route).toEqual(documentedMethods(doc).sort());
    }
    expect(undescribed).toEqual([]);
  });

  it("registers every documented path and alias", () => {
    const routes = documentedPaths.flatMap((doc) => [doc.route, ...(doc.aliases ?? [])]);
    expect(routes.filter((route) => !registered.has(route))).toEqual([]);
  });

  it("leaves out only routes the app registers, so the list of exceptions cannot go stale", () => {
    expect(UNDESCRIBED_ROUTES.filter((route) => !registered.has(route))).toEqual([]);
    expect(registered.has(CATCH_ALL_ROUTE)).toBe(true);
  });
});

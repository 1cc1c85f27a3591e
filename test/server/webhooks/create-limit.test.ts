import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { MAX_WEBHOOKS_PER_KEY } from "../../../pipeline/domain/webhook.ts";
import { createApp } from "../../../server/http/app.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import type { Store } from "../../../server/store/types.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";
import { type OpenedStore, useBackends } from "../store/backends.ts";

// Regression: the limit of webhooks per key was a count, then a write; concurrent creates all saw
// room for one more. Two apps on one store stand for two server processes.

const backends = useBackends();
let snapshots: SnapshotCache;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
  return () => snapshots.close();
});

const appOn = async (store: Store) =>
  createApp(await testContext(snapshots, { store, webhooks: { settings: { allowLoopback: true } } }));

for (const backend of backends) {
  describe.skipIf(backend.skip !== null)(`webhooks per key on the ${backend.kind} store`, () => {
    let opened: OpenedStore;
    afterEach(() => opened.cleanup());

    it(`30 creates at once from two apps: exactly ${MAX_WEBHOOKS_PER_KEY} made, the rest 409`, async () => {
      opened = await backend.open();
      const apps = [await appOn(opened.store), await appOn(opened.store)];
      const { key } = await (await testContext(snapshots, { store: opened.store })).keys.issue({
        tier: "pro",
        email: "a@example.org",
        label: "t",
      });
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, n) =>
          apps[n % 2]?.request("/v1/webhooks", {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-key": key },
            body: JSON.stringify({ url: `http://127.0.0.1:9/hook-${n}`, events: ["daily.published"] }),
          }),
        ),
      );
      const statuses = answers.map((answer) => answer?.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(MAX_WEBHOOKS_PER_KEY);
      expect(statuses.filter((status) => status === 409)).toHaveLength(30 - MAX_WEBHOOKS_PER_KEY);
      const listed = await apps[0]?.request("/v1/webhooks", { headers: { "x-api-key": key } });
      expect(((await listed?.json()) as { webhooks: unknown[] }).webhooks).toHaveLength(MAX_WEBHOOKS_PER_KEY);
      // The lock is given back: after a delete there is room for exactly one more.
      const [first] = (
        (await (await apps[1]?.request("/v1/webhooks", { headers: { "x-api-key": key } }))?.json()) as {
          webhooks: Array<{ id: string }>;
        }
      ).webhooks;
      const removed = await apps[1]?.request(`/v1/webhooks/${first?.id}`, {
        method: "DELETE",
        headers: { "x-api-key": key },
      });
      expect(removed?.status).toBe(204);
      const again = await Promise.all(
        [0, 1].map((n) =>
          apps[n]?.request("/v1/webhooks", {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-key": key },
            body: JSON.stringify({ url: "http://127.0.0.1:9/again", events: ["daily.published"] }),
          }),
        ),
      );
      expect(again.map((answer) => answer?.status).sort()).toEqual([201, 409]);
    }, 30_000);
  });
}

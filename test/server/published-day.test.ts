import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ForYouDelivered, forYouDelivered } from "../../pipeline/domain/for-you-delivery.ts";
import type { ReaderModel } from "../../pipeline/domain/reader-model.ts";
import { dailyEventId } from "../../pipeline/domain/webhook.ts";
import { loadRelevanceModel, newestModelPath } from "../../pipeline/relevance-file.ts";
import { createApp } from "../../server/http/app.ts";
import { tellServers } from "../../server/published-day.ts";
import { createReaderService } from "../../server/readers/reader-service.ts";
import { publishedScreenedSource } from "../../server/readers/screened-source.ts";
import { createSnapshotCache } from "../../server/snapshots/snapshot-cache.ts";
import { createStoreFromEnv } from "../../server/store/from-env.ts";
import { forYouListKey } from "../../server/webhooks/webhook-records.ts";
import { testContext } from "../helpers/context.ts";
import { publishRankedSampleDays } from "../helpers/published.ts";

// `picks curate` ranks the announced day's for_you lists as a server would. Ranking a profile whose
// stored model is outdated refits it and stores the refit for the servers: against the whole published
// history, as a server fits it, not against the announced day alone.

describe("telling the servers of a published day", () => {
  it("refits an outdated model against every published day, keeping earlier days' ratings", async () => {
    const { publicDir } = await publishRankedSampleDays();
    const relevance = await loadRelevanceModel(await newestModelPath());
    const stateDir = await mkdtemp(join(tmpdir(), "picks-told-"));
    const env = { STATE_STORE: "sqlite", STATE_DIR: stateDir };
    const snapshots = await createSnapshotCache({ publicDir });
    const [newest, ...earlier] = snapshots.days().map((held) => held.date);
    const oldest = earlier.at(-1) as string;
    const store = await createStoreFromEnv(env, { rootDir: stateDir });
    const context = await testContext(snapshots, {
      store,
      relevance,
      webhooks: { settings: { allowLoopback: true, retryScheduleMs: [1_000] }, random: () => 0.5 },
    });
    const { key, record } = await context.keys.issue({ tier: "pro", email: "r@example.org", label: "r" });
    const created = await createApp(context).request("/v1/webhooks", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["daily.published"] }),
    });
    expect(created.status).toBe(201);
    // A paper liked on the oldest day and one on the announced day.
    for (const date of [oldest, newest as string]) {
      const paper = (await context.readers.rankDay(record.id, date, 0))?.papers[4];
      expect(await context.readers.rate(record, paper?.arxiv_id as string, 1)).toHaveProperty("version");
    }
    const modelKey = `reader:${record.id}:model`;
    const model = (await store.getItem<ReaderModel>(modelKey)) as ReaderModel;
    expect(model.positives).toBe(2);
    // As stored under the relevance model before this one.
    await store.setItem(modelKey, { ...model, relevance_version: "an-older-model" });
    const day = {
      snapshot: await snapshots.readDay(newest as string),
      record: undefined as never,
      candidates: [],
    };
    await store.close();

    const news = await tellServers(
      day,
      {
        env,
        rootDir: stateDir,
        siteUrl: "https://picks.example.org",
        publicDir,
        relevance: async () => relevance,
      },
      { firmViews: false, announce: true },
    );
    expect(news.announced).toBe(true);
    const after = await createStoreFromEnv(env, { rootDir: stateDir });
    try {
      expect(await after.getItem(modelKey)).toMatchObject({
        relevance_version: relevance.model.version,
        positives: 2,
      });
      // The list curate stored for the day's delivery is the one a server ranks for the key.
      const stored = await after.getItem<ForYouDelivered>(
        forYouListKey(record.id, dailyEventId(newest as string)),
      );
      const server = createReaderService({
        store: after,
        now: Date.now,
        screened: publishedScreenedSource(snapshots),
        relevance,
      });
      const [ranked] = await server.rankDays([record.id], newest as string, 0);
      expect(stored?.items.length).toBeGreaterThan(0);
      expect(stored?.items).toEqual(
        forYouDelivered(ranked ?? expect.fail("not ranked"), newest as string, "").items,
      );
    } finally {
      await after.close();
      snapshots.close();
    }
  }, 60_000);
});

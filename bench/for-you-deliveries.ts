// A day's `daily.published` to 10,000 keys that each have a profile and an endpoint: the time from
// the announcement until every delivery is made with its `for_you` list (each key's list ranked from
// its stored model, stored, then the fan-out), target within 10 s; and what a list adds to an attempt
// (reading it, making the body, signing it) against the plain body's signing.
// Run alone with `node --import tsx bench/for-you-deliveries.ts`; `npm run bench` runs it in its
// `for-you` section (BENCH_ONLY=for-you).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withForYou } from "../pipeline/domain/for-you-delivery.ts";
import {
  fitReaderModel,
  type ProfilePaper,
  READER_MODEL_SETTINGS,
  type ReaderModel,
  readerBackground,
  rowOf,
} from "../pipeline/domain/reader-model.ts";
import type { SimPaper } from "../pipeline/domain/reader-simulation.ts";
import { readSimDays } from "../pipeline/reader-days.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { createKeyService } from "../server/access/key-service.ts";
import { createReaderService } from "../server/readers/reader-service.ts";
import { writeProfile } from "../server/readers/reader-store.ts";
import type { ScreenedPaper, ScreenedSource } from "../server/readers/screened-source.ts";
import { createSnapshotCache } from "../server/snapshots/snapshot-cache.ts";
import { createSqliteStore } from "../server/store/sqlite-store.ts";
import { announcePublishedDay } from "../server/webhooks/daily-announcer.ts";
import { fanOut } from "../server/webhooks/fan-out.ts";
import { readForYouList } from "../server/webhooks/for-you-lists.ts";
import { createSigner } from "../server/webhooks/signing.ts";
import {
  type DeliveryRecord,
  deliveryIdOf,
  deliveryKey,
  type EndpointRecord,
  type EventRecord,
  endpointKey,
  eventKey,
  ownerKey,
} from "../server/webhooks/webhook-records.ts";
import { LABELLED_DAYS } from "../test/helpers/curation.ts";
import { publishSampleDays } from "../test/helpers/published.ts";
import { median } from "./median.ts";
import { simProfile } from "./sim-profile.ts";

export interface ForYouFigures {
  profiles: number;
  candidates: number;
  /** Announcement (lists ranked and stored, event recorded) and fan-out, in seconds. */
  listsSeconds: number;
  fanOutSeconds: number;
  /** This process's CPU (all threads) over the same span: on a machine shared with other work, wall time counts their turns too. */
  cpuSeconds: number;
  /** An attempt's body and signature, µs: with the list (read, body made, signed) and plain (signed). */
  withListUs: number;
  plainUs: number;
}

const chunked = async <T>(items: readonly T[], size: number, each: (item: T) => Promise<unknown>) => {
  for (let at = 0; at < items.length; at += size) await Promise.all(items.slice(at, at + size).map(each));
};

export async function runForYouBench(options: { profiles?: number } = {}): Promise<ForYouFigures> {
  const profiles = options.profiles ?? 10_000;
  const relevance = await loadRelevanceModel(await newestModelPath());
  const { model, vocabulary } = relevance;
  const days = await readSimDays(
    LABELLED_DAYS.map((day) => day.labels),
    LABELLED_DAYS.map((day) => day.listing),
  );
  const day = days.find((entry) => entry.date === "2026-06-03") ?? (days[0] as (typeof days)[0]);
  const pool = days.filter((entry) => entry !== day).flatMap((entry) => entry.papers);
  const rowOfPaper = (paper: SimPaper) => rowOf(paper, model.features, vocabulary);

  // The published day the event announces; its screened papers are a labelled day's (about 320).
  const snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
  const snapshot = await snapshots.readDay(snapshots.days()[0]?.date as string);
  snapshots.close();
  const papers: ScreenedPaper[] = day.papers.map((paper, i) => ({
    arxiv_id: paper.id,
    date: snapshot.date,
    title: paper.title,
    summary: paper.summary,
    authors: paper.authors,
    categories: paper.categories,
    abs_url: `https://arxiv.org/abs/${paper.id}`,
    picked: i < 6,
    rank_score: 1 - i / day.papers.length,
    must_read: i < 3 ? 0.7 : 0.1,
    on_topic: 1 - i / day.papers.length,
  }));
  const screened: ScreenedSource = {
    dates: () => [snapshot.date],
    day: async (date) => (date === snapshot.date ? papers : null),
    find: async (id) => papers.find((paper) => paper.arxiv_id === id) ?? null,
  };

  // Profiles of 5, 20 and 60 library papers, their models fitted once and stored for every key: each
  // key's list still reads and compiles its own stored model, as a delivery's does.
  const background = readerBackground(
    pool
      .slice(-READER_MODEL_SETTINGS.background)
      .reverse()
      .map((paper) => ({ arxiv_id: paper.id, row: rowOfPaper(paper) })),
    vocabulary.idf.length,
  );
  const shapes = [5, 20, 60].map((size, s) => {
    const library = pool.filter((_, i) => i % 7 === s).slice(0, size);
    const papers: ProfilePaper[] = library.map((paper) => ({
      key: `arxiv:${paper.id}`,
      arxiv_id: paper.id,
      title: paper.title,
      row: rowOfPaper(paper),
    }));
    const fitted = fitReaderModel({
      profileVersion: 1,
      relevanceVersion: model.version,
      features: vocabulary.idf.length,
      library: papers,
      liked: [],
      disliked: [],
      background,
    }) as ReaderModel;
    const profile = simProfile(
      library,
      {},
      s === 1 ? { authors: [], phrases: ["agent"] } : { authors: [], phrases: [] },
    );
    return { profile, fitted };
  });

  const dir = await mkdtemp(join(tmpdir(), "picks-for-you-"));
  const store = createSqliteStore({ path: join(dir, "picks.db") });
  try {
    const keys = createKeyService({ store, prefix: "rp_labs_", now: Date.now });
    const owners: string[] = [];
    await chunked(
      Array.from({ length: profiles }, (_, i) => i),
      200,
      async (i) => {
        const { record } = await keys.issue({ tier: "pro", email: `k${i}@example.org`, label: "bench" });
        owners.push(record.id);
        const shape = shapes[i % shapes.length] as (typeof shapes)[0];
        await writeProfile(store, record.id, shape.profile, shape.fitted);
        const id = `wh_${i.toString(16).padStart(24, "0")}`;
        const endpoint: EndpointRecord = {
          id,
          owner: record.id,
          url: `http://127.0.0.1:9/k${i}`,
          events: ["daily.published"],
          description: "",
          created_at: "2026-11-29T08:00:00.000Z",
          secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          previous_secret: null,
          previous_secret_expires_at: null,
        };
        await store.setItem(endpointKey(id), endpoint);
        await store.setItem(ownerKey(record.id, id), 1);
      },
    );

    const readers = createReaderService({ store, now: Date.now, screened, relevance });
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await announcePublishedDay(
      {
        store,
        now: Date.now,
        siteUrl: "https://picks.example.org",
        rankDays: (keyIds, date) => readers.rankDays(keyIds, date, 0),
      },
      snapshot,
    );
    const announced = performance.now();
    const eventId = `evt_daily_${snapshot.date}`;
    const made = await fanOut(store, eventId);
    const ended = performance.now();
    const cpu = process.cpuUsage(cpuBefore);
    if (made !== profiles) throw new Error(`Expected ${profiles} deliveries, made ${made}`);

    // What an attempt does with a list beyond the plain body: read it, make the body, sign it.
    const event = (await store.getItem<EventRecord>(eventKey(eventId))) as EventRecord;
    const signer = createSigner();
    const sample = owners.slice(0, 500);
    const deliveries = await Promise.all(
      sample.map(async (_, i) => {
        const id = `wh_${i.toString(16).padStart(24, "0")}`;
        const record = await store.getItem<DeliveryRecord>(deliveryKey(deliveryIdOf(id, event.id)));
        if (!record?.for_you_list) throw new Error("a delivery without its list");
        return { endpoint: (await store.getItem<EndpointRecord>(endpointKey(id))) as EndpointRecord, record };
      }),
    );
    const withList: number[] = [];
    const plain: number[] = [];
    for (let round = 0; round < 5; round++) {
      let at = performance.now();
      for (const { endpoint, record } of deliveries) {
        const list = await readForYouList(store, record.for_you_list as string);
        const body = list ? withForYou(event.body, list) : event.body;
        signer.signatureFor(endpoint, event.id, 1_800_000_000, body, Date.now());
      }
      withList.push(((performance.now() - at) * 1000) / deliveries.length);
      at = performance.now();
      for (const { endpoint } of deliveries)
        signer.signatureFor(endpoint, event.id, 1_800_000_000, event.body, Date.now());
      plain.push(((performance.now() - at) * 1000) / deliveries.length);
    }
    return {
      profiles,
      candidates: papers.length,
      listsSeconds: (announced - started) / 1000,
      fanOutSeconds: (ended - announced) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      withListUs: median(withList),
      plainUs: median(plain),
    };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function forYouLines(figures: ForYouFigures): string[] {
  const s = (value: number) => value.toFixed(2);
  return [
    `daily.published to ${figures.profiles.toLocaleString("en")} keys with a profile and an endpoint (${figures.candidates} screened papers, SQLite): ` +
      `lists ranked and stored, event recorded ${s(figures.listsSeconds)} s, fan-out ${s(figures.fanOutSeconds)} s, ` +
      `all deliveries made with their lists after ${s(figures.listsSeconds + figures.fanOutSeconds)} s, ` +
      `${s(figures.cpuSeconds)} s of the process's CPU  (target: within 10 s of the publish)`,
    `  an attempt's body with its list (list read, body made, signed): ${figures.withListUs.toFixed(0)} µs against ${figures.plainUs.toFixed(0)} µs to sign the plain body`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of forYouLines(await runForYouBench())) console.log(line);
}

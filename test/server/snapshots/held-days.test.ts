import { mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type IndexedDay, IndexedDaySchema, PICKS_INDEX_FILE } from "../../../pipeline/domain/picks-index.ts";
import type { DailySnapshot } from "../../../pipeline/domain/snapshot.ts";
import { readDailySnapshots } from "../../../pipeline/publish.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { clientFor } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishFixtureDays, publishSampleDays } from "../../helpers/published.ts";
import { publishYear } from "../mcp/year-site.ts";

const opened: SnapshotCache[] = [];
afterEach(() => {
  for (const cache of opened.splice(0)) cache.close();
});

async function open(publicDir: string, log: (message: string) => void = () => {}): Promise<SnapshotCache> {
  const cache = await createSnapshotCache({ publicDir, log });
  opened.push(cache);
  return cache;
}

async function readIndex(publicDir: string): Promise<{ days: IndexedDay[] }> {
  const text = await readFile(join(publicDir, "v1", PICKS_INDEX_FILE), "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return {
    days: text
      .trimEnd()
      .split("\n")
      .map((line) => IndexedDaySchema.parse(JSON.parse(line))),
  };
}

const writeIndex = (publicDir: string, days: readonly IndexedDay[]) =>
  writeFile(join(publicDir, "v1", PICKS_INDEX_FILE), days.map((day) => `${JSON.stringify(day)}\n`).join(""));

describe("the picks index curate writes", () => {
  it("lists every published day with its file's exact size and its picks as list items", async () => {
    const { publicDir } = await publishFixtureDays();
    const index = await readIndex(publicDir);
    const { days } = await readDailySnapshots(join(publicDir, "v1", "daily"));
    expect(index.days.map((day) => day.date)).toEqual(days.map((day) => day.date).reverse());
    for (const day of index.days) {
      const file = join(publicDir, "v1", "daily", `${day.date}.json`);
      expect(day.bytes).toBe((await stat(file)).size);
      const published = days.find((candidate) => candidate.date === day.date) as DailySnapshot;
      expect(day.picks.map((pick) => [pick.arxiv_id, pick.total, pick.axes.A6])).toEqual(
        published.picks.map((pick) => [pick.arxiv_id, pick.scores.total, pick.scores.axes.A6.score]),
      );
    }
  });
});

describe("a server starting from the picks index", () => {
  it("takes an unchanged day from the index without reading its file", async () => {
    const { publicDir } = await publishFixtureDays();
    const index = await readIndex(publicDir);
    const at = index.days.findIndex((day) => day.picks.length > 0);
    const day = index.days[at] as IndexedDay;
    // Same size, same age: the server must believe the index (the file still says otherwise).
    const marked = (day.picks[0]?.title ?? "").replace(/^./, "#");
    (day.picks[0] as { title: string }).title = marked;
    const path = join(publicDir, "v1", PICKS_INDEX_FILE);
    const { mtime } = await stat(path);
    await writeIndex(publicDir, index.days);
    await utimes(path, mtime, mtime);
    const cache = await open(publicDir);
    expect(cache.days()[at]?.picks[0]?.title).toBe(marked);
  });

  it("reads a day in full when its file changed after the index was written", async () => {
    const { publicDir } = await publishFixtureDays();
    const index = await readIndex(publicDir);
    const at = index.days.findIndex((day) => day.picks.length > 0);
    const date = index.days[at]?.date as string;
    const file = join(publicDir, "v1", "daily", `${date}.json`);
    const day = JSON.parse(await readFile(file, "utf8")) as DailySnapshot;
    (day.picks[0] as { title: string }).title = "Retitled after curate";
    await writeFile(file, JSON.stringify(day));
    const cache = await open(publicDir);
    expect(cache.days()[at]?.picks[0]?.title).toBe("Retitled after curate");
    expect(cache.days().map((held) => held.date)).toEqual(index.days.map((held) => held.date));
  });

  it("reads every day in full, and says so, when the index is missing or broken", async () => {
    const { publicDir } = await publishFixtureDays();
    const expected = (await open(publicDir)).days();
    const path = join(publicDir, "v1", PICKS_INDEX_FILE);
    const good = await readFile(path, "utf8");
    const badSize = '{"date":"2026-06-12","bytes":"many","picks":[]}\n';
    for (const broken of [good + badSize, `${good}{not json\n`, null]) {
      if (broken === null) await rm(path);
      else await writeFile(path, broken);
      const log: string[] = [];
      const cache = await open(publicDir, (message) => log.push(message));
      expect(cache.days()).toEqual(expected);
      expect(log.some((line) => line.includes("not a valid picks index"))).toBe(broken !== null);
    }
  });

  it("reads an index whose lines cross the stream's chunks, with either line ending", async () => {
    const publicDir = await mkdtemp(join(tmpdir(), "picks-index-lines-"));
    try {
      await publishYear({ publicDir, days: 100, lastDate: "2026-11-20" });
      const path = join(publicDir, "v1", PICKS_INDEX_FILE);
      const lf = await readFile(path, "utf8");
      // Several of the stream's 64 KiB chunks, and non-ASCII text (authors' names) among them.
      expect(Buffer.byteLength(lf)).toBeGreaterThan(4 * 64 * 1024);
      expect(Buffer.byteLength(lf)).toBeGreaterThan(lf.length);
      await rm(path);
      const readInFull = (await open(publicDir)).days();
      expect(readInFull).toHaveLength(100);
      for (const text of [lf, lf.replaceAll("\n", "\r\n")]) {
        await writeFile(path, text);
        const log: string[] = [];
        const cache = await open(publicDir, (message) => log.push(message));
        expect(log).toEqual([]);
        expect(cache.days()).toEqual(readInFull);
      }
    } finally {
      await rm(publicDir, { recursive: true, force: true });
    }
  });

  it("holds the whole history when a background load settles, if the index describes every day", async () => {
    const { publicDir } = await publishFixtureDays();
    const expected = (await open(publicDir)).days();
    expect(expected.length).toBeGreaterThan(1);
    const described = await createSnapshotCache({ publicDir, background: true });
    opened.push(described);
    expect(described.days()).toEqual(expected);

    // A day changed after the index was written is read in full, behind: until then no history.
    const date = expected[expected.length - 1]?.date as string;
    const file = join(publicDir, "v1", "daily", `${date}.json`);
    const later = new Date(Date.now() + 60_000);
    await utimes(file, later, later);
    const behind = await createSnapshotCache({ publicDir, background: true });
    opened.push(behind);
    expect(behind.days()).toEqual([]);
    await behind.ready();
    expect(behind.days()).toEqual(expected);
  });
});

describe("a corrupt or unreadable day", () => {
  it("is skipped and named in /health while the other days are served, at start and at reload", async () => {
    const { publicDir } = await publishFixtureDays();
    const cache = await open(publicDir);
    const context = await testContext(cache);
    const { call, close } = await clientFor("in-process", context);
    try {
      const healthy = (await (await call("/health")).json()) as { skipped_days: unknown[] };
      expect(healthy.skipped_days).toEqual([]);
      const dates = cache.days().map((day) => day.date);
      await writeFile(join(publicDir, "v1", "daily", `${dates[0]}.json`), '{"date": "trunc');
      await writeFile(
        join(publicDir, "v1", "daily", "2026-01-02.json"),
        JSON.stringify({ date: "2026-01-02" }),
      );
      await cache.reload();
      expect(cache.days().map((day) => day.date)).toEqual(dates.slice(1));
      const health = (await (await call("/health")).json()) as { status: string; skipped_days: unknown[] };
      expect(health.status).toBe("ok");
      expect(health.skipped_days).toEqual([
        { file: `${dates[0]}.json`, reason: "not valid JSON" },
        { file: "2026-01-02.json", reason: "not a valid daily snapshot" },
      ]);
      expect((await call(`/v1/daily/${dates[1]}`)).status).toBe(200);
      expect((await call(`/v1/daily/${dates[0]}`)).status).toBe(404);
      // A fresh start over the same folder says the same, and does not fail.
      const restarted = await open(publicDir);
      expect(restarted.problems()).toEqual(health.skipped_days);
    } finally {
      await close();
    }
  });
});

describe("older days, read from their files when asked", () => {
  it("are not held, and are served with their ETag, a 304, and their picks in full", async () => {
    const publicDir = join(await mkdtemp(join(tmpdir(), "picks-older-")), "public");
    const { days } = await publishYear({ publicDir, days: 45, lastDate: "2026-11-20", picksPerDay: 3 });
    const cache = await open(publicDir);
    const old = days[40] as DailySnapshot;
    const recent = days[0] as DailySnapshot;
    expect(cache.lookup(`/v1/daily/${recent.date}`)).toBeDefined();
    expect(cache.lookup(`/v1/daily/${old.date}`)).toBeUndefined();
    const context = await testContext(cache);
    const { call, close } = await clientFor("in-process", context);
    try {
      const answer = await call(`/v1/daily/${old.date}`);
      expect(answer.status).toBe(200);
      const body = await answer.text();
      expect(body).toBe(await readFile(join(publicDir, "v1", "daily", `${old.date}.json`), "utf8"));
      const etag = answer.headers.get("etag") as string;
      expect(etag).toMatch(/^"/);
      expect((await call(`/v1/daily/${old.date}`, { headers: { "if-none-match": etag } })).status).toBe(304);
      const held = cache.days()[40]?.picks ?? [];
      expect(await cache.fullPicks(held)).toEqual(old.picks);
      // A day whose file went away after the start is a clear error, not a crash.
      await rm(join(publicDir, "v1", "daily", `${days[41]?.date}.json`));
      await expect(cache.fullPicks(cache.days()[41]?.picks ?? [])).rejects.toThrow(/cannot be read/);
    } finally {
      await close();
    }
  });

  it("keep the sample days' answers whole when read by a server that never parsed them", async () => {
    const { publicDir } = await publishSampleDays();
    const cache = await open(publicDir);
    const { days } = await readDailySnapshots(join(publicDir, "v1", "daily"));
    for (const day of days) {
      const items = cache.days().find((held) => held.date === day.date)?.picks ?? [];
      expect(await cache.fullPicks(items)).toEqual(day.picks);
    }
  });
});

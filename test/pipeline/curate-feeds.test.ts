import { access, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { XMLParser } from "fast-xml-parser";
import { parseAtomFeed, parseFeed, parseJsonFeed } from "feedsmith";
import { beforeAll, describe, expect, it } from "vitest";
import { curate } from "../../pipeline/curate.ts";
import { FEED_CHANNELS, strongestGroups } from "../../pipeline/domain/feed-channels.ts";
import { JsonFeedSchema } from "../../pipeline/domain/feeds.ts";
import type { Pick } from "../../pipeline/domain/pick.ts";
import type { Rubric } from "../../pipeline/domain/rubric.ts";
import { AXIS_GROUPS, type AxisGroup } from "../../pipeline/domain/score.ts";
import { DEFAULT_SELECTION } from "../../pipeline/domain/selection.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import { planFeeds } from "../../pipeline/feeds.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { siteUrlFromEnv } from "../../pipeline/site-url.ts";
import { createSampleSource, sampleDays } from "../../pipeline/sources/sample-source.ts";

let rubric: Rubric;
let days: string[];
beforeAll(async () => {
  rubric = await loadRubric();
  days = await sampleDays();
});

async function site() {
  const root = await mkdtemp(join(tmpdir(), "picks-feeds-"));
  return { outDir: join(root, "public"), runsDir: join(root, "runs") };
}

const run = (dirs: { outDir: string; runsDir: string }, date: string, siteUrl?: string) =>
  curate({
    date,
    source: createSampleSource(),
    ...dirs,
    rubric,
    selection: DEFAULT_SELECTION,
    now: () => new Date("2026-11-21T06:00:00Z"),
    ...(siteUrl === undefined ? {} : { siteUrl }),
  });

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, "utf8")) as T;

describe("picks curate writes the feeds", () => {
  it("publishes Atom and JSON Feed entries for every pick of the published days, newest first", async () => {
    const dirs = await site();
    let result: Awaited<ReturnType<typeof run>> | undefined;
    for (const date of days) result = await run(dirs, date, "https://picks.example.org");
    const published = await Promise.all(
      days.map((date) => readJson<DailySnapshot>(join(dirs.outDir, "v1", "daily", `${date}.json`))),
    );
    const expectedIds = published
      .sort((a, b) => (a.date < b.date ? 1 : -1))
      .flatMap((day) => day.picks.map((pick) => `https://arxiv.org/abs/${pick.arxiv_id}#pick-${day.date}`));
    expect(expectedIds.length).toBeGreaterThan(10);

    const xml = await readFile(join(dirs.outDir, "feed.xml"), "utf8");
    const atom = new XMLParser({
      ignoreAttributes: false,
      parseTagValue: false,
      isArray: (n) => n === "entry",
    }).parse(xml);
    expect(atom.feed.entry.map((entry: { id: string }) => entry.id)).toEqual(expectedIds);
    expect(atom.feed.title["#text"]).toBe("Research-Picks (sample data)");
    expect(atom.feed.entry[0].summary["#text"]).toMatch(
      /^Sample data\. Pick #1 of 2026-11-20: total \d+\/45/,
    );
    expect(atom.feed.entry[0].summary["#text"]).toMatch(
      /REG FIT \d\/3 \((would not pass as is|passes|likely)/,
    );

    const json = JsonFeedSchema.parse(await readJson(join(dirs.outDir, "feed.json")));
    expect(json.items.map((item) => item.id)).toEqual(expectedIds);
    expect(json.feed_url).toBe("https://picks.example.org/feed.json");
    expect(result?.files).toEqual(
      expect.arrayContaining([join(dirs.outDir, "feed.xml"), join(dirs.outDir, "feed.json")]),
    );
  });

  it("points the links at PUBLIC_BASE_URL, as the CLI reads it and passes it on", async () => {
    const dirs = await site();
    await run(
      dirs,
      days.at(-1) as string,
      siteUrlFromEnv({ PUBLIC_BASE_URL: "https://mirror.example.net/picks/" }),
    );
    const json = await readJson<{
      home_page_url: string;
      items: Array<{ _research_picks: { day_url: string } }>;
    }>(join(dirs.outDir, "feed.json"));
    expect(json.home_page_url).toBe("https://mirror.example.net/picks/");
    expect(json.items[0]?._research_picks.day_url).toBe(
      `https://mirror.example.net/picks/?date=${days.at(-1)}`,
    );
  });

  it("writes nothing at all when a feed fails its check", async () => {
    const dirs = await site();
    await expect(run(dirs, days[0] as string, "not a url")).rejects.toThrow(/refusing to write .*feed\.json/);
    for (const path of [join(dirs.outDir, "v1", "daily", `${days[0]}.json`), join(dirs.outDir, "feed.xml")]) {
      await expect(access(path)).rejects.toThrow(/ENOENT/);
    }
  });
});

describe("picks curate writes the archive's search index", () => {
  it("indexes every pick of every published day and gives its size in the run record", async () => {
    const dirs = await site();
    for (const date of days) await run(dirs, date);
    const published = await Promise.all(
      days.map((date) => readJson<DailySnapshot>(join(dirs.outDir, "v1", "daily", `${date}.json`))),
    );
    const path = join(dirs.outDir, "v1", "search-index.json");
    const content = await readFile(path, "utf8");
    const file = JSON.parse(content) as { version: number; documents: number; options: { fields: string[] } };
    expect(file.version).toBe(1);
    expect(file.documents).toBe(published.reduce((sum, day) => sum + day.picks.length, 0));
    expect(file.options.fields).toEqual(["title", "authors", "summary", "arxiv_id"]);

    const record = await readJson<{ files: string[]; search_index: Record<string, unknown> }>(
      join(dirs.runsDir, `${days.at(-1)}.json`),
    );
    expect(record.files).toContain(path);
    expect(record.search_index).toEqual({
      path,
      documents: file.documents,
      bytes: Buffer.byteLength(content),
      gzip_bytes: gzipSync(content).byteLength,
    });
  });
});

describe("picks curate writes a feed per group and for REG FIT 3", () => {
  const byStrongest = (group: AxisGroup) => (pick: Pick) => strongestGroups(pick).includes(group);
  const expectations: ReadonlyArray<[string, (pick: Pick) => boolean]> = [
    ...AXIS_GROUPS.map((group): [string, (pick: Pick) => boolean] => [group, byStrongest(group)]),
    ["reg-fit-3", (pick: Pick) => pick.scores.reg_fit.score === 3],
  ];

  it("holds only the picks of its channel in both formats, as an independent parser reads them", async () => {
    const dirs = await site();
    for (const date of days) await run(dirs, date, "https://picks.example.org");
    const published = await Promise.all(
      days.map((date) => readJson<DailySnapshot>(join(dirs.outDir, "v1", "daily", `${date}.json`))),
    );
    const newestFirst = published.sort((a, b) => (a.date < b.date ? 1 : -1));
    let nonEmpty = 0;
    for (const [slug, keeps] of expectations) {
      const expectedIds = newestFirst.flatMap((day) =>
        day.picks.filter(keeps).map((pick) => `https://arxiv.org/abs/${pick.arxiv_id}#pick-${day.date}`),
      );
      if (expectedIds.length > 0) nonEmpty++;
      const atom = parseAtomFeed(await readFile(join(dirs.outDir, `feed-${slug}.xml`), "utf8"));
      expect(atom.id).toBe(`https://picks.example.org/feed-${slug}.xml`);
      expect(atom.title?.value).toMatch(/^Research-Picks: .+ \(sample data\)$/);
      expect((atom.entries ?? []).map((entry) => entry.id)).toEqual(expectedIds);
      const json = parseJsonFeed(await readFile(join(dirs.outDir, `feed-${slug}.json`), "utf8"));
      expect(json.feed_url).toBe(`https://picks.example.org/feed-${slug}.json`);
      expect((json.items ?? []).map((item) => item.id)).toEqual(expectedIds);
    }
    // The sample has picks in more than one channel, so the filter is shown to split, not only to pass.
    expect(nonEmpty).toBeGreaterThan(1);
  });

  it("writes a valid feed without entries for a channel with no picks", () => {
    const planned = planFeeds({ days: [], outDir: "/site", baseUrl: "https://picks.example.org", rubric });
    expect(planned.map((file) => file.path)).toEqual(
      FEED_CHANNELS.flatMap((channel) => [`/site/${channel.atomFile}`, `/site/${channel.jsonFile}`]),
    );
    for (const file of planned) {
      const parsed = parseFeed(file.content);
      const items =
        parsed.format === "atom"
          ? parsed.feed.entries
          : parsed.format === "json"
            ? parsed.feed.items
            : ["not a feed format written here"];
      expect(items ?? [], file.path).toEqual([]);
    }
  });
});

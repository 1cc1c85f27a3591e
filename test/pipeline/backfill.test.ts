import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { announcedAt, listingDayOf, listingDaysBetween } from "../../pipeline/domain/announcement.ts";
import { parseManifest } from "../../pipeline/domain/manifest.ts";
import type { RunRecord } from "../../pipeline/domain/run-record.ts";
import { ScreenedDaySchema } from "../../pipeline/domain/screened.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import { createS3Origin } from "../../pipeline/origin/s3-origin.ts";
import { createStoreFromEnv } from "../../server/store/from-env.ts";
import { announcedDayKey } from "../../server/webhooks/webhook-records.ts";
import { clearOfWindowEnd } from "../helpers/clock-window.ts";
import { type HistoryEntry, historyEntries, historyReply } from "../helpers/fake-arxiv-history.ts";
import {
  type FakeReply,
  type FakeUpstream,
  type SeenRequest,
  startFakeUpstream,
} from "../helpers/fake-upstream.ts";
import { motoSkipReason, newBucket, s3Env, s3Settings, startMoto } from "../helpers/moto.ts";
import { PICKS_BIN, runPicks } from "../helpers/processes.ts";

// Three weeks of listings, Monday 3 to Friday 21 November 2025, across the change from EDT to EST
// (2 November): the recorded entries are spread over the submissions of those weeks, five hours apart.
const FROM = "2025-11-03";
const TO = "2025-11-21";
const FIRST_SUBMISSION = Date.parse("2025-10-30T18:00:00Z");
const { header, entries } = historyEntries((index) => new Date(FIRST_SUBMISSION + index * 303 * 60_000));
const CATEGORIES = new Set(["cs.AI", "cs.LG", "cs.CL", "cs.MA", "cs.CR", "cs.SE"]);

let fake: FakeUpstream;
/** Replies the test wants instead of the API's answer, by request number (1-based). */
let overrides = new Map<number, FakeReply>();

beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  overrides = new Map();
  fake.route("GET", "/api/query", (request: SeenRequest) => {
    return overrides.get(fake.seen("/api/query").length) ?? historyReply(header, entries, request);
  });
});

async function workspace() {
  const root = await mkdtemp(join(tmpdir(), "picks-backfill-"));
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !/^(ARXIV_|S2_|OPENALEX_|LLM_|REDIS_URL|STATE_)/.test(name),
      ),
    ),
    ARXIV_API_URL: `${fake.url}/api/query`,
    ARXIV_MIN_INTERVAL_MS: "0",
    ARXIV_PAGE_SIZE: "2",
    STATE_DIR: join(root, "state"),
    PICKS_CONTACT: "operator@example.org",
  };
  const dirs = ["--out", join(root, "public"), "--runs", join(root, "runs")];
  return { root, env, dirs, publicDir: join(root, "public") };
}

/** Every file under a folder, by its path inside it, with its bytes. */
async function tree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path, "utf8"));
  }
  return files;
}

const listedOn = (day: string): HistoryEntry[] =>
  entries.filter(
    (entry) =>
      entry.categories.some((category) => CATEGORIES.has(category)) && listingDayOf(entry.published) === day,
  );

const requestKey = (request: SeenRequest) =>
  `${request.query.get("search_query")} @${request.query.get("start")}`;

describe("picks backfill", () => {
  it("publishes every weekday of three weeks with the papers the schedule lists on it, and no weekend", async () => {
    const { env, dirs, root, publicDir } = await workspace();
    // A floor of 0: the recorded papers (a query for "testing") are off the picks' topic, and the
    // history should have picks to index.
    const args = ["backfill", "--from", FROM, "--to", TO, "--no-citations", "--min-total", "0", ...dirs];
    const result = await runPicks(args, env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const weekdays = listingDaysBetween(FROM, TO);
    expect(weekdays).toHaveLength(15);
    const daily = (await readdir(join(publicDir, "v1", "daily")))
      .filter((name) => /^\d{4}/.test(name))
      .sort();
    expect(daily).toEqual(weekdays.map((day) => `${day}.json`));
    let papers = 0;
    let kept = 0;
    for (const day of weekdays) {
      const record = JSON.parse(await readFile(join(root, "runs", `${day}.json`), "utf8")) as RunRecord;
      expect(record.backfilled).toBe(true);
      const expected = listedOn(day)
        .map((entry) => entry.id)
        .sort();
      expect(record.candidates.map((candidate) => candidate.id).sort()).toEqual(expected);
      papers += expected.length;
      const snapshot = JSON.parse(
        await readFile(join(publicDir, "v1", "daily", `${day}.json`), "utf8"),
      ) as DailySnapshot;
      expect(snapshot.generated_at).toBe(announcedAt(day).toISOString());
      kept += snapshot.picks.length;
      // Each past day gets its screened file too: every candidate, the day's picks marked.
      const screened = ScreenedDaySchema.parse(
        JSON.parse(await readFile(join(publicDir, "v1", "screened", `${day}.json`), "utf8")),
      );
      expect(screened.papers.map((paper) => paper.arxiv_id).sort()).toEqual(expected);
      expect(screened.papers.filter((paper) => paper.picked).map((paper) => paper.arxiv_id)).toEqual(
        snapshot.picks.map((pick) => pick.arxiv_id),
      );
      expect(screened.generated_at).toBe(snapshot.generated_at);
    }
    // Each day asks only its own window, a page of two at a time: no paper is read twice.
    expect(papers).toBeGreaterThan(60);
    expect(result.stdout).toContain("published 15 of 15 days;");
    const latest = JSON.parse(
      await readFile(join(publicDir, "v1", "daily", "latest.json"), "utf8"),
    ) as DailySnapshot;
    expect(latest.date).toBe(TO);
    // History enters the archive like any day: the stats, the picks index and the feed.
    const stats = JSON.parse(await readFile(join(publicDir, "v1", "stats.json"), "utf8"));
    expect(stats).toMatchObject({ days: 15, first_date: FROM, latest_date: TO, screened: papers, kept });
    const index = await readFile(join(publicDir, "v1", "picks-index.jsonl"), "utf8");
    expect(index.trim().split("\n")).toHaveLength(15);
    expect(kept).toBeGreaterThan(20);
    const feed = JSON.parse(await readFile(join(publicDir, "feed.json"), "utf8")) as { items: unknown[] };
    expect(feed.items.length).toBeGreaterThan(0);

    // History is not news: every day is recorded as announced, quietly, so no server announces it.
    const store = await createStoreFromEnv(env);
    try {
      for (const day of weekdays) {
        expect(await store.getItem(announcedDayKey(day))).toMatchObject({ how: "quiet" });
      }
    } finally {
      await store.close();
    }

    // The same command again publishes nothing and asks nothing.
    fake.requests.length = 0;
    const again = await runPicks(args, env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("published 0 of 0 days, skipped 15 already published");
    expect(fake.seen("/api/query")).toHaveLength(0);

    // --force publishes a day again, from the pages asked again.
    const forced = await runPicks(
      ["backfill", "--from", TO, "--to", TO, "--force", "--no-citations", ...dirs],
      env,
    );
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("published 1 of 1 days");
    expect(fake.seen("/api/query").length).toBeGreaterThan(0);
  });

  it("continues after SIGKILL in the middle of a day: the same bytes, and no page asked again", async () => {
    const whole = await workspace();
    const uninterrupted = await runPicks(
      ["backfill", "--from", FROM, "--to", "2025-11-07", "--no-citations", ...whole.dirs],
      whole.env,
    );
    expect(uninterrupted.code).toBe(0);

    fake.requests.length = 0;
    const cut = await workspace();
    // 3 November takes three pages of two, 4 November six: the 7th request, the fourth page of 4 November,
    // never answers, and the process is killed while it waits.
    let arrived: () => void = () => {};
    const hung = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    overrides.set(7, { hang: true });
    const args = ["backfill", "--from", FROM, "--to", "2025-11-07", "--no-citations", ...cut.dirs];
    const child: ChildProcess = spawn(process.execPath, [PICKS_BIN, ...args], {
      env: cut.env,
      stdio: "ignore",
    });
    const watch = setInterval(() => {
      if (fake.seen("/api/query").length >= 7) arrived();
    }, 10);
    await hung;
    clearInterval(watch);
    const seventh = fake.seen("/api/query")[6] as SeenRequest;
    expect(seventh.query.get("start")).toBe("6");
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const answered = new Set(fake.seen("/api/query").slice(0, 6).map(requestKey));

    overrides = new Map();
    fake.requests.length = 0;
    const resumed = await runPicks(["backfill", "--resume"], cut.env);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    const asked = fake.seen("/api/query").map(requestKey);
    expect(asked[0]).toBe(requestKey(seventh));
    expect(asked.filter((key) => answered.has(key))).toEqual([]);

    const [a, b] = [await tree(whole.publicDir), await tree(cut.publicDir)];
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [path, content] of a) expect(b.get(path), path).toBe(content);
  });

  it("stops at a day whose answer is not a feed, keeps the days before, and retries it on --resume", async () => {
    const { env, dirs, publicDir } = await workspace();
    overrides.set(4, {
      headers: { "content-type": "text/html" },
      body: "<html><body>Rate exceeded.</body></html>",
    });
    const failed = await runPicks(
      ["backfill", "--from", FROM, "--to", "2025-11-05", "--no-citations", ...dirs],
      env,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/backfill of 2025-11-04 failed: .*expected an Atom <feed>, got <html>/);
    expect(failed.stderr).toContain(
      "the days before it (1) stay published; `picks backfill --resume` retries it",
    );
    const daily = await readdir(join(publicDir, "v1", "daily"));
    expect(daily).toContain("2025-11-03.json");
    expect(daily).not.toContain("2025-11-04.json");

    overrides = new Map();
    const resumed = await runPicks(["backfill", "--resume"], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("published 2 of 2 days, skipped 1 already published");
  });

  it("fails a day whose page holds fewer entries than its total leaves", async () => {
    const { env, dirs } = await workspace();
    overrides.set(1, {
      headers: { "content-type": "application/atom+xml" },
      body: `${header.replace(/<opensearch:totalResults>\d+/, "<opensearch:totalResults>9")}</feed>`,
    });
    const failed = await runPicks(["backfill", "--from", FROM, "--to", FROM, "--no-citations", ...dirs], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/2025-11-03 failed: .*says 9 results in all but holds 0 entries/);
  });

  it("prints the days and the requests of a dry run, and asks and writes nothing", async () => {
    const { env, dirs, root } = await workspace();
    const result = await runPicks(
      ["backfill", "--from", "2025-11-07", "--to", "2025-11-10", "--dry-run", ...dirs],
      env,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("2025-11-07  to publish");
    expect(result.stdout).toContain("2025-11-10  to publish");
    expect(result.stdout).not.toContain("2025-11-08");
    expect(result.stdout).toContain("2 of 2 listing days to publish; at least 2 arXiv requests");
    expect(fake.seen("/api/query")).toHaveLength(0);
    expect(await readdir(root)).toEqual([]);
  });

  it("prints one JSON document with --json, the days and their times in it", async () => {
    const { env, dirs } = await workspace();
    const result = await runPicks(
      ["backfill", "--from", FROM, "--to", "2025-11-04", "--no-citations", "--json", ...dirs],
      env,
    );
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as {
      published: { date: string; ms: number }[];
      failed: unknown;
    };
    expect(document.published.map((day) => day.date)).toEqual([FROM, "2025-11-04"]);
    expect(document.failed).toBeNull();
  });

  it.skipIf(motoSkipReason())(
    "with --publish, uploads the backfilled days to the bucket once, after the last day",
    async () => {
      const moto = await startMoto();
      try {
        const bucket = await newBucket(moto.endpoint, "backfill");
        const { env, dirs } = await workspace();
        const result = await runPicks(
          [
            "backfill",
            "--from",
            FROM,
            "--to",
            "2025-11-04",
            "--no-citations",
            "--publish",
            `s3://${bucket}/h`,
            ...dirs,
          ],
          { ...env, ...s3Env(moto.endpoint) },
        );
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/s3:\/\/.*\/h at .*: uploaded \d+ files/);
        const origin = createS3Origin({ bucket, prefix: "h", settings: s3Settings(moto.endpoint) });
        try {
          const body = await origin.read("v1/manifest.json");
          const manifest = parseManifest(body ?? Buffer.alloc(0));
          if ("problem" in manifest) throw new Error(manifest.problem);
          expect(manifest.newest_day).toBe("2025-11-04");
          expect(Object.keys(manifest.files)).toEqual(
            expect.arrayContaining([
              `v1/daily/${FROM}.json`,
              "v1/daily/2025-11-04.json",
              "v1/daily/latest.json",
            ]),
          );
        } finally {
          origin.close();
        }
      } finally {
        await moto.stop();
      }
    },
  );

  it.each([
    [["--from", "2025-11-10", "--to", "2025-11-03"], /--from.*no later than.*--to/],
    [["--from", "2025-02-30", "--to", "2025-03-03"], /Expected `--from` to be YYYY-MM-DD, got `2025-02-30`/],
    [
      ["--from", "2025-11-03", "--to", "2999-01-01"],
      /before \d{4}-\d{2}-\d{2}, the day the live listing holds now/,
    ],
    [["--from", "2025-11-03", "--to", "today"], /the live listing holds now/],
    [["--from", "2019-01-01", "--to", "2025-11-03"], /over 3 years.*--yes/],
    [["--to", "2025-11-03"], /needs `--from` and `--to`/],
    [["--resume"], /no stopped backfill to resume/],
  ])("refuses %j with exit 2, asking and creating nothing", async (asked, message) => {
    // "today" is read here, clear of 00:00 UTC: read when the file loads, it could be yesterday by the
    // time the command reads its own clock, and yesterday can be a day it takes.
    if (asked.includes("today")) await clearOfWindowEnd(86_400, 10_000);
    const today = new Date().toISOString().slice(0, 10);
    const flags = asked.map((flag) => (flag === "today" ? today : flag));
    const { env, dirs, root } = await workspace();
    const result = await runPicks(["backfill", ...flags, ...dirs], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(fake.seen("/api/query")).toHaveLength(0);
    expect(await readdir(root)).toEqual([]);
  });
});

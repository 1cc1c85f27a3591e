import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { submissionWindow } from "../../../pipeline/domain/announcement.ts";
import { createHttpClient, type HttpClient } from "../../../pipeline/http.ts";
import {
  type DayPages,
  dayQuery,
  historySource,
  InconsistentDayError,
  readDayPages,
  startDay,
} from "../../../pipeline/sources/arxiv-history.ts";
import { historyEntries, historyReply } from "../../helpers/fake-arxiv-history.ts";
import { type FakeUpstream, type SeenRequest, startFakeUpstream } from "../../helpers/fake-upstream.ts";

// Tuesday 25 November 2025 lists Friday 21 November 19:00 UTC to Monday 24 November 19:00 UTC (EST).
const DAY = "2025-11-25";
const { from } = submissionWindow(DAY);
// Ten recorded entries an hour apart from the window's start, then the rest after its end.
const { header, entries } = historyEntries(
  (index) => new Date(from.getTime() + (index < 10 ? index : 100 + index) * 3_600_000),
);
const CATEGORIES = ["cs.SE", "cs.LG", "cs.AI"];

let fake: FakeUpstream;
let client: HttpClient;
beforeAll(async () => {
  fake = await startFakeUpstream();
  client = createHttpClient({
    userAgent: "Research-Picks/test (mailto:ops@example.org)",
    retries: 0,
    backoffBaseMs: 1,
  });
});
afterAll(async () => {
  await client.close();
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

const options = () => ({ client, categories: CATEGORIES, apiUrl: `${fake.url}/api/query`, pageSize: 3 });
/** The API's answers, with the body of the nth request replaced by `tweaks[n - 1]` where one is given. */
const serve = (...tweaks: (((request: SeenRequest) => string | undefined) | undefined)[]) =>
  fake.route("GET", "/api/query", (request) => {
    const reply = historyReply(header, entries, request);
    const tweak = tweaks[fake.seen("/api/query").length - 1]?.(request);
    return tweak === undefined ? reply : { ...reply, body: tweak };
  });

describe("the query of a past day", () => {
  it("asks the categories' submissions of the day's window and a minute either side, in GMT", () => {
    expect(dayQuery(["cs.AI", "cs.LG"], DAY)).toBe(
      "(cat:cs.AI OR cat:cs.LG) AND submittedDate:[202511211859 TO 202511241900]",
    );
  });
});

describe("readDayPages", () => {
  it("reads every page in order and checkpoints after each", async () => {
    serve();
    const saved: DayPages[] = [];
    const pages = await readDayPages(options(), startDay(options(), DAY), async (page) => {
      saved.push(page);
    });
    const inWindow = entries
      .slice(0, 10)
      .filter((entry) => entry.categories.some((c) => CATEGORIES.includes(c)));
    expect(pages.total).toBe(inWindow.length);
    expect(pages.entries.map((entry) => entry.id)).toEqual(inWindow.map((entry) => entry.id));
    expect(saved.map((page) => page.entries.length)).toEqual(
      [3, 6, 9, inWindow.length].slice(0, Math.ceil(inWindow.length / 3)),
    );
    expect(fake.seen("/api/query").map((request) => request.query.get("start"))).toEqual(
      saved.map((_, index) => String(index * 3)),
    );
    const batch = await historySource(CATEGORIES, pages).load(DAY);
    expect(batch.candidates.map((candidate) => candidate.id)).toEqual(inWindow.map((entry) => entry.id));
  });

  it("continues a checkpoint from its next entry, and starts over for another query", async () => {
    serve();
    const first = await readDayPages(options(), startDay(options(), DAY), async () => {});
    fake.requests.length = 0;
    const partial: DayPages = { ...first, entries: first.entries.slice(0, 3), requests: 1 };
    const resumed = await readDayPages(options(), startDay(options(), DAY, partial), async () => {});
    expect(resumed.entries).toEqual(first.entries);
    expect(fake.seen("/api/query")[0]?.query.get("start")).toBe("3");
    expect(startDay({ ...options(), categories: ["cs.CL"] }, DAY, partial).entries).toEqual([]);
  });

  it("reads the day again from its start when the total changes between pages, and fails the second time", async () => {
    const changed = (request: SeenRequest) =>
      historyReply(header, entries, request).body?.replace(
        /<opensearch:totalResults>\d+/,
        "<opensearch:totalResults>42",
      );
    serve(undefined, changed);
    const pages = await readDayPages(options(), startDay(options(), DAY), async () => {});
    const starts = fake.seen("/api/query").map((request) => request.query.get("start"));
    expect(starts.slice(0, 3)).toEqual(["0", "3", "0"]);
    expect(new Set(pages.entries.map((entry) => entry.id)).size).toBe(pages.total);

    fake.requests.length = 0;
    serve(undefined, changed, undefined, changed);
    await expect(readDayPages(options(), startDay(options(), DAY), async () => {})).rejects.toThrow(
      InconsistentDayError,
    );
  });

  it("fails a day whose pages repeat entries, since as many were missed", async () => {
    const firstPageAgain = (request: SeenRequest) => {
      const query = new URLSearchParams(request.query);
      query.set("start", "0");
      return historyReply(header, entries, { ...request, query }).body;
    };
    serve(undefined, firstPageAgain);
    await expect(readDayPages(options(), startDay(options(), DAY), async () => {})).rejects.toThrow(
      /3 entries came twice across pages/,
    );
  });

  it("fails a weekday the API answers with no papers", async () => {
    serve(() => `${header.replace(/<opensearch:totalResults>\d+/, "<opensearch:totalResults>0")}</feed>`);
    await expect(readDayPages(options(), startDay(options(), DAY), async () => {})).rejects.toThrow(
      /answered 0 papers/,
    );
  });

  it("fails an answer that refuses the query with an error entry", async () => {
    serve(
      () =>
        `${header}<entry><id>http://arxiv.org/api/errors#incorrect_id_format</id><title>Error</title><summary>malformed query</summary></entry></feed>`,
    );
    await expect(readDayPages(options(), startDay(options(), DAY), async () => {})).rejects.toThrow(
      /refused the query: malformed query/,
    );
  });
});

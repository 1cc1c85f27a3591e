import { gzipSync } from "node:zlib";
import MiniSearch, { type AsPlainObject } from "minisearch";
import { describe, expect, it } from "vitest";
import { addDays } from "../../pipeline/domain/calendar.ts";
import { searchDocuments } from "../../pipeline/domain/search-index.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import { buildSearchIndex, encodePostings, type SearchIndexFile } from "../../pipeline/search-index.ts";
import { type RecordedPaper, recordedPapers } from "../helpers/fixtures.ts";

// The archive's search index: its size and speed over a year of days, and that the page's decoder
// (public/assets/search-index-codec.js, loaded here as the browser loads it) gives MiniSearch back
// exactly the index it wrote.

interface Codec {
  decodePostings(encoded: Record<string, number[]>): Record<string, Record<string, number>>;
  decodeIndex(index: SearchIndexFile["index"]): AsPlainObject;
}
const CODEC = new URL("../../public/assets/search-index-codec.js", import.meta.url).href;
const codec = (await import(CODEC)) as Codec;

/** A year of weekdays ending 2026-11-20, five picks a day, cycling through the real papers. */
function yearOfDays(): DailySnapshot[] {
  const papers = recordedPapers();
  const days: DailySnapshot[] = [];
  let serial = 0;
  for (let back = 0; back < 365; back++) {
    const date = addDays("2026-11-20", -back);
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    const picks = Array.from({ length: 5 }, (_, slot) => {
      const paper = papers[serial % papers.length] as RecordedPaper;
      serial += 1;
      return {
        arxiv_id: `${date.slice(2, 4)}${date.slice(5, 7)}.${String(serial).padStart(5, "0")}`,
        date,
        rank: slot + 1,
        title: paper.title,
        authors: paper.authors,
        summary: paper.summary,
        scores: { total: 20, reg_fit: { score: 2 } },
      };
    });
    days.push({ date, picks } as unknown as DailySnapshot);
  }
  return days;
}

const YEAR = yearOfDays();

function load(content: string): MiniSearch {
  const file = JSON.parse(content) as SearchIndexFile;
  return MiniSearch.loadJS(codec.decodeIndex(file.index), file.options);
}

describe("the postings encoding", () => {
  it.each([
    [{ "2": { "0": 1 } }, { "2": [1] }],
    [{ "0": { "5": 1, "3": 2, "40": 1 } }, { "0": [4, -2, 2, 35] }],
    [
      { "1": { "7": 3 }, "3": { "1": 1, "2": 1 } },
      { "1": [8, -3], "3": [2, 1] },
    ],
  ])("writes %j as %j and reads it back", (postings, encoded) => {
    expect(encodePostings(postings)).toEqual(encoded);
    expect(codec.decodePostings(encoded)).toEqual(postings);
  });

  it("gives MiniSearch back exactly the index it serialised, for a year of days", () => {
    const built = buildSearchIndex(YEAR, "2026-11-20T06:00:00.000Z");
    const file = JSON.parse(built.content) as SearchIndexFile;
    const decoded = codec.decodeIndex(file.index);
    const reencoded = decoded.index.map(([term, postings]) => [
      term,
      encodePostings(postings as Record<string, Record<string, number>>),
    ]);
    expect(reencoded).toEqual(file.index.index);
    expect(MiniSearch.loadJS(decoded, file.options).documentCount).toBe(file.documents);
  });
});

describe("the search index of a year of days", () => {
  const built = buildSearchIndex(YEAR, "2026-11-20T06:00:00.000Z");
  const search = load(built.content);
  // What the page asks (public/assets/search.js): prefixes from two letters, typos from four.
  const options = {
    prefix: (term: string) => term.length >= 2,
    fuzzy: (term: string) => (term.length >= 4 ? 0.2 : false),
    boost: { title: 2, authors: 1.5 },
  };

  it("holds every pick and stays under 300 KB compressed", () => {
    expect(built.documents).toBe(YEAR.reduce((sum, day) => sum + day.picks.length, 0));
    expect(built.documents).toBeGreaterThan(1200);
    expect(built.gzipBytes).toBe(gzipSync(built.content).byteLength);
    process.stderr.write(
      `search index, ${built.documents} picks: ${built.bytes} bytes, ${built.gzipBytes} gzip\n`,
    );
    expect(built.gzipBytes).toBeLessThan(300 * 1024);
  });

  it("finds a paper by a misspelt author, by a title prefix and by its arXiv id", () => {
    const target = searchDocuments(YEAR)[17] as ReturnType<typeof searchDocuments>[number];
    const surname = (target.authors.split(", ")[0] as string).split(" ").at(-1) as string;
    // One letter wrong, as a reader misremembers a name.
    const misspelt = `${surname.slice(0, 2)}${surname[2] === "e" ? "a" : "e"}${surname.slice(3)}`;
    const byAuthor = search.search(misspelt, options).map((hit) => hit.arxiv_id);
    expect(byAuthor).toContain(target.arxiv_id);
    const byId = search.search(target.arxiv_id, { ...options, combineWith: "AND", fields: ["arxiv_id"] });
    expect(byId[0]?.arxiv_id).toBe(target.arxiv_id);
    expect(byId[0]?.date).toBe(target.date);
    const word = (target.title.split(/\s+/).find((part) => part.length > 7) as string).slice(0, 6);
    expect(search.search(word, options).map((hit) => hit.arxiv_id)).toContain(target.arxiv_id);
  });
});

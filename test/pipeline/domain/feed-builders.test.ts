import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import {
  buildAtomFeed,
  buildJsonFeed,
  FEED_DAYS,
  type FeedSite,
  feedItems,
  feedUpdated,
  JsonFeedSchema,
  likelihoodText,
  xmlEscape,
} from "../../../pipeline/domain/feeds.ts";
import type { Pick } from "../../../pipeline/domain/pick.ts";
import { AXIS_IDS, type AxisScore, type Scores } from "../../../pipeline/domain/score.ts";
import type { DailySnapshot } from "../../../pipeline/domain/snapshot.ts";
import { assertAtomFeed } from "../../../pipeline/feeds.ts";
import { siteUrlFromEnv } from "../../../pipeline/site-url.ts";

const SITE: FeedSite = {
  baseUrl: "https://picks.example.org",
  regFitNames: { 1: "would not pass as is", 2: "passes with named remediation", 3: "likely passes" },
};

function scores(total: number, regFit: 1 | 2 | 3): Scores {
  const axes = Object.fromEntries(
    AXIS_IDS.map((id) => [id, { score: 0, evidence: [] }]),
  ) as unknown as Record<(typeof AXIS_IDS)[number], AxisScore>;
  axes.A1.score = Math.min(5, total);
  return {
    scorer: "rules",
    rubric_version: "2026.11.1",
    axes,
    groups: { substrate: Math.min(5, total), governance: 0, research: 0 },
    total,
    reg_fit: { score: regFit, rationale: "", evidence: [] },
  };
}

function pick(id: string, date: string, rank: number, title = `Paper ${id}`): Pick {
  return {
    arxiv_id: id,
    date,
    rank,
    title,
    authors: ["Ada Lovelace", "Alan Turing"],
    categories: ["cs.AI"],
    summary: `About ${id}.`,
    abs_url: `https://arxiv.org/abs/${id}`,
    pdf_url: `https://arxiv.org/pdf/${id}`,
    scores: scores(12 + rank, 2),
    citations: null,
  };
}

/** A pick the relevance model ranked: its heads, its must-read likelihood when `mustRead` is given. */
function ranked(id: string, date: string, rank: number, mustRead?: number): Pick {
  return {
    ...pick(id, date, rank),
    relevance: {
      on_topic: 0.99,
      top: 0.8,
      regulated: 0.3,
      ...(mustRead === undefined ? {} : { must_read: mustRead }),
    },
    why_ranked: [{ term: "agents", contribution: 1.2 }],
  };
}

function day(date: string, picks: Pick[], sample = false): DailySnapshot {
  return {
    date,
    generated_at: `${date}T06:00:00.000Z`,
    sample,
    source: sample ? "sample" : "arxiv",
    rubric_version: "2026.11.1",
    selection: { min_total: 11, min_reg_fit: 2, max_picks: 6 },
    counts: { screened: 70, skipped: 0, duplicates: 0, kept: picks.length },
    picks,
  };
}

describe("xmlEscape", () => {
  it.each([
    ["plain", "plain"],
    ["a & b", "a &amp; b"],
    ["</title><script>", "&lt;/title&gt;&lt;script&gt;"],
    [`say "hi" it's`, "say &quot;hi&quot; it&apos;s"],
    ["τ-bench 👋", "τ-bench 👋"],
    ["bell\u0007 and null\u0000 dropped", "bell and null dropped"],
    ["tab\tnewline\ncr\r kept", "tab\tnewline\ncr\r kept"],
    ["lone \uD800 surrogate and \uFFFE", "lone  surrogate and "],
  ])("%j becomes %j", (input, expected) => {
    expect(xmlEscape(input)).toBe(expected);
  });
});

describe("feedItems", () => {
  it("lists every pick of the newest days, newest day first, then by rank", () => {
    const days = [
      day("2026-11-18", [pick("2401.00001", "2026-11-18", 1)]),
      day("2026-11-20", [pick("2401.00003", "2026-11-20", 2), pick("2401.00002", "2026-11-20", 1)]),
      day("2026-11-19", []),
    ];
    const items = feedItems(days, SITE);
    expect(items.map((item) => item.id)).toEqual([
      "https://arxiv.org/abs/2401.00002#pick-2026-11-20",
      "https://arxiv.org/abs/2401.00003#pick-2026-11-20",
      "https://arxiv.org/abs/2401.00001#pick-2026-11-18",
    ]);
    expect(items[0]).toMatchObject({
      url: "https://arxiv.org/abs/2401.00002",
      pdfUrl: "https://arxiv.org/pdf/2401.00002",
      dayUrl: "https://picks.example.org/?date=2026-11-20",
      published: "2026-11-20T00:00:00Z",
      updated: "2026-11-20T06:00:00.000Z",
      summary:
        "Pick #1 of 2026-11-20: total 13/45 (substrate 5/15, governance 0/15, research 0/15); " +
        "REG FIT 2/3 (passes with named remediation).",
    });
  });

  it("gives a paper picked on two days two entries with different ids", () => {
    const items = feedItems(
      [
        day("2026-11-19", [pick("2401.00001", "2026-11-19", 1)]),
        day("2026-11-20", [pick("2401.00001", "2026-11-20", 1)]),
      ],
      SITE,
    );
    expect(new Set(items.map((item) => item.id)).size).toBe(2);
  });

  it(`covers only the newest ${FEED_DAYS} days`, () => {
    const days = Array.from({ length: FEED_DAYS + 3 }, (_, i) => {
      const date = `2026-10-${String(i + 1).padStart(2, "0")}`;
      return day(date, [pick(`2410.${String(i).padStart(5, "0")}`, date, 1)]);
    });
    const items = feedItems(days, SITE);
    expect(items).toHaveLength(FEED_DAYS);
    expect(items.at(-1)?.pick.date).toBe("2026-10-04");
    expect(feedUpdated(days)).toBe("2026-10-17T06:00:00.000Z");
  });

  it("puts the must-read likelihood beside the total when the model gave one, and nothing when not", () => {
    const items = feedItems(
      [
        day("2026-11-20", [
          ranked("2401.00001", "2026-11-20", 1, 0.7212),
          ranked("2401.00002", "2026-11-20", 2),
          pick("2401.00003", "2026-11-20", 3),
        ]),
      ],
      SITE,
    );
    expect(items.map((item) => item.summary)).toEqual([
      "Pick #1 of 2026-11-20: must-read likelihood 72%, total 13/45 (substrate 5/15, governance 0/15, " +
        "research 0/15); REG FIT 2/3 (passes with named remediation).",
      "Pick #2 of 2026-11-20: total 14/45 (substrate 5/15, governance 0/15, research 0/15); " +
        "REG FIT 2/3 (passes with named remediation).",
      "Pick #3 of 2026-11-20: total 15/45 (substrate 5/15, governance 0/15, research 0/15); " +
        "REG FIT 2/3 (passes with named remediation).",
    ]);
  });

  it.each([
    [0.7212, "72%"],
    [0.005, "1%"],
    [0.0012, "<1%"],
    [0, "<1%"],
    [0.9949, "99%"],
    [0.9969, ">99%"],
    [1, ">99%"],
  ])("writes the likelihood %d as %s, never claiming certainty", (value, text) => {
    expect(likelihoodText(value)).toBe(text);
  });

  it("says so when the day is sample data", () => {
    const [item] = feedItems([day("2026-11-20", [pick("2401.00001", "2026-11-20", 1)], true)], SITE);
    expect(item?.summary).toMatch(/^Sample data\. Pick #1/);
  });
});

describe("buildAtomFeed", () => {
  const hostile = 'Attacks </title><script>alert("x")</script> & \u0007bells';
  const days = [
    day("2026-11-20", [pick("2401.00001", "2026-11-20", 1, hostile), pick("cs/0112017", "2026-11-20", 2)]),
  ];
  const items = feedItems(days, SITE);
  const xml = buildAtomFeed(items, SITE, feedUpdated(days));
  const parsed = new XMLParser({
    ignoreAttributes: false,
    parseTagValue: false,
    isArray: (n) => n === "entry",
  }).parse(xml);

  it("is well-formed Atom whose text reads back as written, minus characters XML cannot hold", () => {
    expect(() =>
      assertAtomFeed(
        xml,
        items.map((item) => item.id),
        "feed.xml",
      ),
    ).not.toThrow();
    expect(parsed.feed["@_xmlns"]).toBe("http://www.w3.org/2005/Atom");
    expect(parsed.feed.entry[0].title["#text"]).toBe('Attacks </title><script>alert("x")</script> & bells');
    expect(xml).not.toContain("<script>");
  });

  it("carries the feed's links, ids and each entry's links, authors and categories", () => {
    expect(parsed.feed.id).toBe("https://picks.example.org/feed.xml");
    expect(parsed.feed.updated).toBe("2026-11-20T06:00:00.000Z");
    const self = parsed.feed.link.find((link: Record<string, string>) => link["@_rel"] === "self");
    expect(self["@_href"]).toBe("https://picks.example.org/feed.xml");
    const second = parsed.feed.entry[1];
    expect(second.id).toBe("https://arxiv.org/abs/cs/0112017#pick-2026-11-20");
    expect(second.link.map((link: Record<string, string>) => [link["@_rel"], link["@_href"]])).toEqual([
      ["alternate", "https://arxiv.org/abs/cs/0112017"],
      ["enclosure", "https://arxiv.org/pdf/cs/0112017"],
      ["related", "https://picks.example.org/?date=2026-11-20"],
    ]);
    expect(second.author.map((author: { name: string }) => author.name)).toEqual([
      "Ada Lovelace",
      "Alan Turing",
    ]);
    expect(second.summary["#text"]).toContain("total 14/45");
    expect(second.summary["#text"]).toContain("REG FIT 2/3");
  });

  it("is refused when an entry goes missing or the XML is broken", () => {
    expect(() => assertAtomFeed(xml, [...items.map((item) => item.id), "extra"], "feed.xml")).toThrow(
      /do not match/,
    );
    expect(() => assertAtomFeed(xml.replace("</feed>", ""), [], "feed.xml")).toThrow(/not well-formed/);
    expect(() => assertAtomFeed('<?xml version="1.0"?><rss/>', [], "feed.xml")).toThrow(/not an Atom/);
  });
});

describe("buildJsonFeed", () => {
  it("is a JSON Feed 1.1 document with the scores in an extension", () => {
    const days = [day("2026-11-20", [pick("2401.00001", "2026-11-20", 1)], true)];
    const feed = buildJsonFeed(feedItems(days, SITE), SITE);
    expect(JsonFeedSchema.safeParse(feed).success).toBe(true);
    expect(feed).toMatchObject({
      version: "https://jsonfeed.org/version/1.1",
      title: "Research-Picks (sample data)",
      home_page_url: "https://picks.example.org/",
      feed_url: "https://picks.example.org/feed.json",
    });
    expect(feed.items[0]).toMatchObject({
      id: "https://arxiv.org/abs/2401.00001#pick-2026-11-20",
      url: "https://arxiv.org/abs/2401.00001",
      date_published: "2026-11-20T00:00:00Z",
      attachments: [{ url: "https://arxiv.org/pdf/2401.00001", mime_type: "application/pdf", title: "PDF" }],
      _research_picks: { rank: 1, total: 13, reg_fit: 2, sample: true, arxiv_id: "2401.00001" },
    });
  });

  it("carries the must-read likelihood beside the total when the model gave one", () => {
    const days = [
      day("2026-11-20", [ranked("2401.00001", "2026-11-20", 1, 0.7212), pick("2401.00002", "2026-11-20", 2)]),
    ];
    const feed = buildJsonFeed(feedItems(days, SITE), SITE);
    expect(JsonFeedSchema.safeParse(feed).success).toBe(true);
    expect(Object.keys(feed.items[0]?._research_picks ?? {})).toEqual([
      "date",
      "rank",
      "arxiv_id",
      "total",
      "must_read",
      "groups",
      "reg_fit",
      "sample",
      "day_url",
    ]);
    expect(feed.items[0]?._research_picks.must_read).toBe(0.7212);
    expect(feed.items[0]?.content_text).toMatch(
      /^Pick #1 of 2026-11-20: must-read likelihood 72%, total 13\/45/,
    );
    expect(feed.items[1]?._research_picks).not.toHaveProperty("must_read");
    expect(feed.items[1]?.summary).not.toContain("likelihood");
  });

  it("fails its schema when the base URL is not a URL", () => {
    const days = [day("2026-11-20", [pick("2401.00001", "2026-11-20", 1)])];
    const site = { baseUrl: "not a url" };
    expect(JsonFeedSchema.safeParse(buildJsonFeed(feedItems(days, site), site)).success).toBe(false);
  });
});

describe("siteUrlFromEnv", () => {
  it.each([
    [undefined, "http://127.0.0.1:8787"],
    ["", "http://127.0.0.1:8787"],
    ["https://picks.example.org/", "https://picks.example.org"],
    ["https://example.org/picks/", "https://example.org/picks"],
    [" http://localhost:3000 ", "http://localhost:3000"],
  ])("PUBLIC_BASE_URL=%j gives %j", (value, expected) => {
    expect(siteUrlFromEnv({ PUBLIC_BASE_URL: value })).toBe(expected);
  });

  it.each([
    "ftp://example.org",
    "example.org",
    "https://example.org/?x=1",
    "https://example.org/#top",
  ])("refuses %j and says what it expected", (value) => {
    expect(() => siteUrlFromEnv({ PUBLIC_BASE_URL: value })).toThrow(
      /Expected PUBLIC_BASE_URL to be an http\(s\) URL/,
    );
  });
});

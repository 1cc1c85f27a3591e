import { parseAtomFeed, parseJsonFeed } from "feedsmith";
import { describe, expect, it } from "vitest";
import type { FeedSite } from "../../../pipeline/domain/feeds.ts";
import {
  buildForYouAtom,
  buildForYouJson,
  FEED_TOKEN_PATTERN,
  type FeedPaper,
  feedWhy,
  forYouEntries,
  PersonalJsonFeedSchema,
  whyText,
} from "../../../pipeline/domain/personal-feed.ts";
import type { PersonalItem, WhyForYou } from "../../../pipeline/domain/personal-ranking.ts";

const SITE: FeedSite = { baseUrl: "https://picks.example.org" };
const TOKEN = `rpf_${"a".repeat(40)}_-Z`;

const why = (placed_by: WhyForYou["placed_by"], more: Partial<WhyForYou> = {}): WhyForYou => ({
  nearest: [],
  followed_author: null,
  followed_phrase: null,
  global_likelihood: 0.42,
  personal: null,
  placed_by,
  ...more,
});

const paper = (id: string, title: string, picked = false, summary = `About ${title}.`): FeedPaper => ({
  arxiv_id: id,
  title,
  summary,
  authors: ["Ada Lovelace", "Alan Turing"],
  categories: ["cs.AI"],
  abs_url: `https://arxiv.org/abs/${id}`,
  picked,
});

const NEAR = [
  { key: "arxiv:2401.00001", arxiv_id: "2401.00001", title: "Audit trails", similarity: 0.5 },
  { key: "title:my unpublished draft", arxiv_id: null, title: "My unpublished draft", similarity: 0.4 },
  { key: "arxiv:2401.00003", arxiv_id: "2401.00003", title: "Third", similarity: 0.3 },
];

describe("whyText", () => {
  it("says in one sentence which rule placed the paper and the likelihood, naming nothing of the reader's", () => {
    expect(whyText(feedWhy(why("followed_author", { followed_author: "Ada Lovelace" })))).toBe(
      "By an author you follow. Must-read likelihood 42%.",
    );
    expect(
      whyText(feedWhy(why("followed_phrase", { followed_phrase: "audit trail", global_likelihood: null }))),
    ).toBe("Mentions a phrase you follow.");
    expect(whyText(feedWhy(why("blend", { nearest: NEAR })))).toBe(
      "Placed by your profile and the global model together. Near papers in your library or likes. " +
        "Must-read likelihood 42%.",
    );
    expect(whyText(feedWhy(why("blend")))).not.toContain("Near");
    expect(whyText(feedWhy(why("must_read", { global_likelihood: 0.999 })))).toContain(
      "Must-read likelihood >99%.",
    );
    expect(whyText(feedWhy(why("global")))).toMatch(/^In the day's global order/);
  });
});

describe("the feed of a reader with a private library and follows", () => {
  const papers = [paper("2401.00001", "Screened one"), paper("2401.00002", "Screened two")];
  const entries = forYouEntries({
    date: "2026-11-20",
    generatedAt: "2026-11-20T06:00:00Z",
    sample: false,
    papers,
    items: [
      { index: 1, for_you: 0.9, why_for_you: why("followed_phrase", { followed_phrase: "quokka ledger" }) },
      { index: 0, for_you: 0.7, why_for_you: why("blend", { nearest: NEAR, personal: 0.8 }) },
    ],
    limit: 10,
    site: SITE,
  });

  it("never names a library title, a library key or a followed phrase in either document", () => {
    const bodies = [
      buildForYouAtom(entries, SITE, TOKEN, "2026-11-20T06:00:00Z", false),
      JSON.stringify(buildForYouJson(entries, SITE, TOKEN, false)),
    ];
    for (const body of bodies) {
      for (const secret of [
        "My unpublished draft",
        "my unpublished draft",
        "Audit trails",
        "quokka ledger",
      ]) {
        expect(body).not.toContain(secret);
      }
      // The screened papers themselves are the feed.
      expect(body).toContain("Screened one");
    }
    const json = buildForYouJson(entries, SITE, TOKEN, false);
    expect(json.items.map((item) => item._for_you.why_for_you)).toEqual([
      { global_likelihood: 0.42, personal: null, placed_by: "followed_phrase", near_library: false },
      { global_likelihood: 0.42, personal: 0.8, placed_by: "blend", near_library: true },
    ]);
  });
});

describe("the personal feed's documents", () => {
  const papers = [
    paper("2401.00001", "First <paper> & co"),
    paper("2401.00002", "Second", true),
    paper("2401.00003", "Third", false, ""),
  ];
  const items: PersonalItem[] = [
    { index: 2, for_you: 0.9, why_for_you: why("followed_author", { followed_author: "Ada Lovelace" }) },
    { index: 0, for_you: 0.6, why_for_you: why("blend") },
    { index: 1, for_you: 0.1, why_for_you: why("must_read") },
  ];
  const entries = forYouEntries({
    date: "2026-11-20",
    generatedAt: "2026-11-20T06:00:00Z",
    sample: false,
    papers,
    items,
    limit: 2,
    site: SITE,
  });

  it("keeps the list's order and its top `limit`, each entry saying its place and why", () => {
    expect(entries.map((entry) => entry.id)).toEqual([
      "https://arxiv.org/abs/2401.00003#for-you-2026-11-20",
      "https://arxiv.org/abs/2401.00001#for-you-2026-11-20",
    ]);
    expect(entries[0]?.summary).toBe(
      "For you #1 of 2026-11-20 (global #3): By an author you follow. Must-read likelihood 42%.",
    );
    // An empty screened summary still gives the entry content.
    expect(entries[0]?.abstract).toBe("Third");
    expect(entries[0]?.pdfUrl).toBe("https://arxiv.org/pdf/2401.00003");
  });

  it("is valid Atom and JSON Feed 1.1 at the token's URL, with hostile titles escaped", () => {
    const atom = parseAtomFeed(buildForYouAtom(entries, SITE, TOKEN, "2026-11-20T06:00:00Z", false));
    expect(atom.id).toBe(`https://picks.example.org/v1/feeds/for-you/${TOKEN}.xml`);
    expect(atom.title?.value).toBe("Research-Picks: for you");
    expect(atom.entries?.map((entry) => entry.title?.value)).toEqual(["Third", "First <paper> & co"]);
    const json = buildForYouJson(entries, SITE, TOKEN, true);
    expect(PersonalJsonFeedSchema.parse(json).title).toBe("Research-Picks: for you (sample data)");
    const parsed = parseJsonFeed(JSON.stringify(json));
    expect(parsed.feed_url).toBe(`https://picks.example.org/v1/feeds/for-you/${TOKEN}.json`);
    expect(json.items.map((item) => [item._for_you.rank, item._for_you.global_rank])).toEqual([
      [1, 3],
      [2, 1],
    ]);
  });

  it("takes tokens of one shape only", () => {
    expect(FEED_TOKEN_PATTERN.test(TOKEN)).toBe(true);
    for (const bad of [
      TOKEN.slice(0, -1),
      `${TOKEN}a`,
      TOKEN.replace("rpf_", "rpk_"),
      `rpf_${"a".repeat(42)}=`,
    ]) {
      expect(FEED_TOKEN_PATTERN.test(bad), bad).toBe(false);
    }
  });
});

import { describe, expect, it } from "vitest";
import { FEED_CHANNELS, strongestGroups } from "../../../pipeline/domain/feed-channels.ts";
import type { Pick } from "../../../pipeline/domain/pick.ts";

const withScores = (substrate: number, governance: number, research: number, regFit: 1 | 2 | 3): Pick =>
  ({
    scores: { groups: { substrate, governance, research }, reg_fit: { score: regFit } },
  }) as unknown as Pick;

const channel = (slug: string | null) => FEED_CHANNELS.find((entry) => entry.slug === slug);

describe("strongestGroups", () => {
  it.each([
    [[9, 3, 2], ["substrate"]],
    [[3, 9, 2], ["governance"]],
    [[3, 2, 9], ["research"]],
    [
      [7, 7, 2],
      ["substrate", "governance"],
    ],
    [
      [0, 0, 0],
      ["substrate", "governance", "research"],
    ],
  ])("groups %j -> %j", ([substrate, governance, research], expected) => {
    expect(strongestGroups(withScores(substrate ?? 0, governance ?? 0, research ?? 0, 2))).toEqual(expected);
  });
});

describe("the feed channels", () => {
  it("names one pair of files per channel, the main feed's as before", () => {
    expect(FEED_CHANNELS.map((entry) => [entry.atomFile, entry.jsonFile])).toEqual([
      ["feed.xml", "feed.json"],
      ["feed-substrate.xml", "feed-substrate.json"],
      ["feed-governance.xml", "feed-governance.json"],
      ["feed-research.xml", "feed-research.json"],
      ["feed-reg-fit-3.xml", "feed-reg-fit-3.json"],
    ]);
  });

  it.each([
    [null, withScores(1, 2, 3, 1), true],
    ["governance", withScores(3, 9, 2, 1), true],
    ["governance", withScores(9, 3, 2, 3), false],
    ["substrate", withScores(7, 7, 2, 2), true],
    ["governance", withScores(7, 7, 2, 2), true],
    ["reg-fit-3", withScores(1, 2, 3, 3), true],
    ["reg-fit-3", withScores(1, 2, 3, 2), false],
  ])("%s keeps %j: %s", (slug, pick, kept) => {
    expect(channel(slug)?.keeps(pick)).toBe(kept);
  });
});

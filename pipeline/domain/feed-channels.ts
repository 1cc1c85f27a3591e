import type { Pick } from "./pick.ts";
import type { AxisGroup } from "./score.ts";
import { AXIS_GROUPS } from "./score.ts";

// The feeds `picks curate` writes beside each other: every pick, one feed per rubric group and one for
// REG FIT 3, each in Atom and JSON Feed. A reader who follows governance only subscribes to its feed.
// Pure: one list that the publisher, the server's static routes and the OpenAPI document all read.

/** One feed: which picks it keeps and the two files it is written to at the site's root. */
export interface FeedChannel {
  /** `null` for the main feed; otherwise the name in its files, `feed-<slug>.xml`. */
  slug: string | null;
  /** Shown after the feed title and in the page's `<link rel="alternate">` titles. */
  label: string | null;
  /** What the feed holds, one sentence. */
  description: string;
  atomFile: string;
  jsonFile: string;
  keeps: (pick: Pick) => boolean;
}

/** The groups a pick scores highest in (all of them on a tie), as the page's group filter reads it. */
export function strongestGroups(pick: Pick): AxisGroup[] {
  const { groups } = pick.scores;
  const best = Math.max(...AXIS_GROUPS.map((group) => groups[group]));
  return AXIS_GROUPS.filter((group) => groups[group] === best);
}

const channel = (
  slug: string | null,
  label: string | null,
  description: string,
  keeps: (pick: Pick) => boolean,
): FeedChannel => ({
  slug,
  label,
  description,
  atomFile: slug === null ? "feed.xml" : `feed-${slug}.xml`,
  jsonFile: slug === null ? "feed.json" : `feed-${slug}.json`,
  keeps,
});

export const MAIN_FEED: FeedChannel = channel(null, null, "Every pick.", () => true);

/** The main feed first, then one per group, then REG FIT 3. */
export const FEED_CHANNELS: readonly FeedChannel[] = [
  MAIN_FEED,
  ...AXIS_GROUPS.map((group) =>
    channel(group, group, `The picks strongest in ${group} (ties count for each group).`, (pick) =>
      strongestGroups(pick).includes(group),
    ),
  ),
  channel(
    "reg-fit-3",
    "REG FIT 3",
    "The picks with REG FIT 3 (likely passes a model-risk review).",
    (pick) => pick.scores.reg_fit.score === 3,
  ),
];

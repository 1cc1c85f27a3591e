import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { FEED_CHANNELS } from "./domain/feed-channels.ts";
import {
  buildAtomFeed,
  buildJsonFeed,
  type FeedSite,
  feedItems,
  feedUpdated,
  JsonFeedSchema,
} from "./domain/feeds.ts";
import type { Rubric } from "./domain/rubric.ts";
import type { DailySnapshot } from "./domain/snapshot.ts";
import { writeFileAtomic } from "./publish.ts";

/** A feed file ready to write: its path and its checked content. */
export interface FeedFile {
  path: string;
  content: string;
}

/**
 * Parses the Atom document back and checks it holds what was meant: a malformed feed (a bug in the
 * escaping) must stop the run before anything is written, as an invalid JSON snapshot does.
 */
export function assertAtomFeed(xml: string, expectedIds: readonly string[], path: string): void {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new Error(
      `refusing to write ${path}: not well-formed XML (${valid.err.msg}, line ${valid.err.line})`,
    );
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    parseTagValue: false,
    isArray: (name) => name === "entry",
  });
  const parsed = parser.parse(xml);
  const feed = parsed?.feed;
  if (feed?.["@_xmlns"] !== "http://www.w3.org/2005/Atom") {
    throw new Error(`refusing to write ${path}: the root is not an Atom <feed>`);
  }
  const ids = ((feed.entry ?? []) as Array<{ id?: unknown }>).map((entry) => String(entry.id));
  // The parser decodes the predefined entities, so each id must read back exactly as it was meant.
  if (ids.length !== expectedIds.length || ids.some((id, i) => id !== expectedIds[i])) {
    throw new Error(`refusing to write ${path}: the entries read back do not match the picks`);
  }
}

/** Builds every channel's two feeds of the newest days and checks them; nothing is written here. */
export function planFeeds(input: {
  days: readonly DailySnapshot[];
  outDir: string;
  baseUrl: string;
  rubric?: Rubric;
}): FeedFile[] {
  const regFitNames = Object.fromEntries(
    (input.rubric?.reg_fit.levels ?? []).map((level) => [level.score, level.name]),
  );
  const site: FeedSite = { baseUrl: input.baseUrl, regFitNames };
  const items = feedItems(input.days, site);
  const updated = feedUpdated(input.days);
  // A channel with no picks still says whether its days are the sample: its items cannot tell.
  const sample = items.some((item) => item.sample);
  return FEED_CHANNELS.flatMap((channel) => {
    const kept = items.filter((item) => channel.keeps(item.pick));
    const atomPath = join(input.outDir, channel.atomFile);
    const jsonPath = join(input.outDir, channel.jsonFile);
    const atom = buildAtomFeed(kept, site, updated, channel, sample);
    assertAtomFeed(
      atom,
      kept.map((item) => item.id),
      atomPath,
    );
    const jsonFeed = buildJsonFeed(kept, site, channel, sample);
    const checked = JsonFeedSchema.safeParse(jsonFeed);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new Error(
        `refusing to write ${jsonPath}: /${issue?.path.join("/") ?? ""} ${issue?.message ?? "is invalid"}`,
      );
    }
    return [
      { path: atomPath, content: atom },
      { path: jsonPath, content: JSON.stringify(jsonFeed) },
    ];
  });
}

/** Writes each feed atomically (temporary file, flush, rename). */
export async function writeFeeds(files: readonly FeedFile[]): Promise<void> {
  for (const file of files) await writeFileAtomic(file.path, file.content);
}

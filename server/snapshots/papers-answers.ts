import { LRUCache } from "lru-cache";
import { type PapersPage, type PapersQuery, queryPapers } from "../../pipeline/domain/papers-query.ts";
import { TIERS, type TierName } from "../../pipeline/domain/tiers.ts";
import { type PapersIndex, papersIndex } from "./papers-index.ts";
import { queryScreened, type ScreenedItems } from "./screened-papers.ts";
import type { SnapshotCache } from "./snapshot-cache.ts";

// The bytes of GET /v1/papers answers. A full ten-year history takes tens of milliseconds to filter,
// join and encode, so what is made is kept, per snapshot generation (a reload starts afresh):
// - each answer, by tier and validated query, bounded in bytes: a few full-history answers, or
//   thousands of small ones;
// - each list item's JSON, made the first time an answer holds it and bounded by the index: a new
//   query over the full history (5,000 items, 2.5 MB) is then a concatenation, not 20-28 ms of
//   JSON.stringify.

const ANSWER_CACHE_BYTES = 32 * 1024 * 1024;
/** The most items one answer holds (the enterprise tier's `limit`): the newest are made by `warm`. */
const NEWEST_ITEMS = 5000;
/** Items made a turn of the event loop by `warm`: about a millisecond, so requests keep their turn. */
const ITEMS_A_TURN = 250;
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]}");

export interface PapersAnswers {
  /** The index of the current generation: days newest first, and each paper's newest pick. */
  index(): PapersIndex;
  /** The bytes of a list answer for this tier and validated query, once the history is loaded. */
  list(tier: TierName, query: PapersQuery): Buffer;
  /**
   * The bytes of a `scope=screened` list answer, read from the days' screened files: as a picks
   * answer, with `applied.scope`. Throws DayUnavailableError when a screened file cannot be read.
   */
  screened(tier: TierName, query: PapersQuery): Promise<Buffer>;
  /**
   * Makes the JSON of the newest NEWEST_ITEMS items of the current generation, a slice a turn: the
   * first full-history query after a start or a reload then concatenates.
   */
  warm(): Promise<void>;
}

interface Generation {
  index: PapersIndex;
  answers: LRUCache<string, Buffer>;
  items: Map<object, Buffer>;
}

export function createPapersAnswers(
  snapshots: Pick<SnapshotCache, "days" | "ready" | "readScreened">,
): PapersAnswers {
  let current: Generation | undefined;
  const generation = (): Generation => {
    const days = snapshots.days();
    if (current?.index.days !== days) {
      current = {
        index: papersIndex(days),
        answers: new LRUCache<string, Buffer>({
          maxSize: ANSWER_CACHE_BYTES,
          sizeCalculation: (body, key) => body.byteLength + key.length * 2,
        }),
        items: new Map(),
      };
    }
    return current;
  };

  const encodedItem = (items: Map<object, Buffer>, item: object): Buffer => {
    let bytes = items.get(item);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(item));
      items.set(item, bytes);
    }
    return bytes;
  };

  /** The same bytes as JSON.stringify of `{tier, applied, total, returned, papers}`. */
  const answerBytes = (
    encode: (item: object) => Buffer,
    tier: TierName,
    page: PapersPage<object>,
    applied: object,
  ): Buffer => {
    const head = JSON.stringify({ tier, applied, total: page.total, returned: page.picks.length });
    const parts: Buffer[] = [Buffer.from(`${head.slice(0, -1)},"papers":[`)];
    page.picks.forEach((item, at) => {
      if (at > 0) parts.push(COMMA);
      parts.push(encode(item));
    });
    parts.push(CLOSE);
    return Buffer.concat(parts);
  };

  // A screened item's JSON lives as long as its parsed file (a bounded few weeks of them), not as long
  // as the generation: every screened paper of a long history would not fit in memory.
  const screenedItems = new WeakMap<object, Buffer>();
  const screenedLists: ScreenedItems = new WeakMap();
  const encodedScreened = (item: object): Buffer => {
    let bytes = screenedItems.get(item);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(item));
      screenedItems.set(item, bytes);
    }
    return bytes;
  };

  const capsOf = (tier: TierName) => ({
    historyDays: TIERS[tier].history_days,
    maxLimit: TIERS[tier].max_limit,
  });

  const listAnswer = ({ index, items }: Generation, tier: TierName, query: PapersQuery): Buffer => {
    const page = queryPapers(index.days, query, capsOf(tier));
    return answerBytes((item) => encodedItem(items, item), tier, page, page.applied);
  };

  const screenedAnswer = async (made: Generation, tier: TierName, query: PapersQuery): Promise<Buffer> => {
    const page = await queryScreened(snapshots, made.index.days, query, capsOf(tier), screenedLists);
    return answerBytes(encodedScreened, tier, page, { ...page.applied, scope: "screened" });
  };

  return {
    index: () => generation().index,
    list(tier, query) {
      const made = generation();
      // The answer depends on the tier (its caps and its name in the body) and the query, nothing else.
      const key = `${tier}|${JSON.stringify(query)}`;
      let body = made.answers.get(key);
      if (body === undefined) {
        body = listAnswer(made, tier, query);
        made.answers.set(key, body);
      }
      return body;
    },
    async screened(tier, query) {
      const made = generation();
      const key = `${tier}|screened|${JSON.stringify(query)}`;
      let body = made.answers.get(key);
      if (body === undefined) {
        body = await screenedAnswer(made, tier, query);
        made.answers.set(key, body);
      }
      return body;
    },
    async warm() {
      await snapshots.ready();
      const made = generation();
      const newest: object[] = [];
      for (const day of made.index.days) {
        for (const pick of day.picks) if (newest.length < NEWEST_ITEMS) newest.push(pick);
        if (newest.length >= NEWEST_ITEMS) break;
      }
      for (let at = 0; at < newest.length; at += ITEMS_A_TURN) {
        await new Promise((resolve) => setImmediate(resolve));
        // A reload while warming: the new generation is warmed by its own call.
        if (current !== made) return;
        for (const item of newest.slice(at, at + ITEMS_A_TURN)) encodedItem(made.items, item);
      }
    },
  };
}

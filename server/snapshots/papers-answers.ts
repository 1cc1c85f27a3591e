import { LRUCache } from "lru-cache";
import { type PapersQuery, queryPapers } from "../../pipeline/domain/papers-query.ts";
import { TIERS, type TierName } from "../../pipeline/domain/tiers.ts";
import { type PapersIndex, papersIndex } from "./papers-index.ts";
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
  /** The bytes of a list answer for this tier and validated query, once the history is loaded. */
  list(tier: TierName, query: PapersQuery): Buffer;
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

export function createPapersAnswers(snapshots: Pick<SnapshotCache, "days" | "ready">): PapersAnswers {
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
  const listAnswer = ({ index, items }: Generation, tier: TierName, query: PapersQuery): Buffer => {
    const limits = TIERS[tier];
    const page = queryPapers(index.days, query, {
      historyDays: limits.history_days,
      maxLimit: limits.max_limit,
    });
    const head = JSON.stringify({
      tier,
      applied: page.applied,
      total: page.total,
      returned: page.picks.length,
    });
    const parts: Buffer[] = [Buffer.from(`${head.slice(0, -1)},"papers":[`)];
    page.picks.forEach((item, at) => {
      if (at > 0) parts.push(COMMA);
      parts.push(encodedItem(items, item));
    });
    parts.push(CLOSE);
    return Buffer.concat(parts);
  };

  return {
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

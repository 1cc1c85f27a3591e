import type { ConsumeResult } from "./types.ts";

/** Consumes of one counter, each alone and in the order given, in one atomic step. */
export type ConsumeAll<R = ConsumeResult[]> = (
  key: string,
  limit: number,
  expiresAt: number,
  amounts: readonly number[],
) => R;

/** One counter's consume as a single statement: the new count, or undefined when `amount` does not fit. */
export type ConsumeOnce = (
  key: string,
  limit: number,
  expiresAt: number,
  amount: number,
) => number | undefined;

interface Group {
  readonly limit: number;
  readonly expiresAt: number;
  readonly amounts: number[];
  readonly results: Promise<ConsumeResult[]>;
}

/**
 * Joins the consumes of one counter asked for before its work runs (a client's requests arriving in
 * the same turn of the event loop, all on its key's counter) into one step of the store, which
 * answers each as if it had run alone, in the order asked: exact, as one at a time. At saturation
 * on one key this saves all but one of a turn's store calls (about 5 µs a keyed request on SQLite).
 * A consume of the counter with another limit or expiry (a tier just changed, a clock stepped back)
 * closes the group and opens the next, so the groups, run in the order they were opened, keep the
 * order asked.
 *
 * `write` runs its work later, never before it returns (the store's group commit, or the next check
 * phase), and resolves with its result; the work may run again should its commit be tried again.
 */
export function joinConsumes<R extends ConsumeResult[] | Promise<ConsumeResult[]>>(
  write: (work: () => R) => Promise<ConsumeResult[]>,
  consumeAll: ConsumeAll<R>,
): (key: string, limit: number, expiresAt: number, amount: number) => Promise<ConsumeResult> {
  const open = new Map<string, Group>();

  const start = (key: string, limit: number, expiresAt: number): Group => {
    const amounts: number[] = [];
    // Closed to newcomers once its work starts, or once refused before it ran (the store closed, the
    // batch failed), or when `write` throws.
    const close = (): void => {
      if (open.get(key)?.amounts === amounts) open.delete(key);
    };
    let results: Promise<ConsumeResult[]>;
    try {
      results = write(() => {
        close();
        return consumeAll(key, limit, expiresAt, amounts);
      });
    } catch (error) {
      results = Promise.reject(error);
    }
    const group = { limit, expiresAt, amounts, results };
    open.set(key, group);
    results.catch(close);
    return group;
  };

  return async (key, limit, expiresAt, amount) => {
    let group = open.get(key);
    if (group === undefined || group.limit !== limit || group.expiresAt !== expiresAt) {
      group = start(key, limit, expiresAt);
    }
    const index = group.amounts.push(amount) - 1;
    const results = await group.results;
    const result = results[index];
    if (result === undefined) throw new Error(`Expected an answer for consume ${index + 1} of ${key}`);
    return result;
  };
}

/**
 * `ConsumeAll` over a single-statement consume, inside a transaction: one statement of the sum when
 * it fits under the limit (each then answered the count it would have had alone), else one statement
 * each, in order. `count` reads a counter, for a consume refused.
 */
export function consumeInOrder(consumeOnce: ConsumeOnce, count: (key: string) => number): ConsumeAll {
  return (key, limit, expiresAt, amounts) => {
    if (amounts.length > 1) {
      const total = amounts.reduce((sum, amount) => sum + amount, 0);
      const counted = consumeOnce(key, limit, expiresAt, total);
      if (counted !== undefined) {
        let sum = counted - total;
        return amounts.map((amount) => {
          sum += amount;
          return { allowed: true, count: sum };
        });
      }
    }
    return amounts.map((amount) => {
      const counted = consumeOnce(key, limit, expiresAt, amount);
      return counted === undefined
        ? { allowed: false, count: count(key) }
        : { allowed: true, count: counted };
    });
  };
}

import type { ConsumeResult } from "./types.ts";

/** One counter's consume as a single statement: the new count, or undefined when `amount` does not fit. */
export type ConsumeOnce = (
  key: string,
  limit: number,
  expiresAt: number,
  amount: number,
) => number | undefined;

interface Group {
  readonly key: string;
  readonly limit: number;
  readonly expiresAt: number;
  readonly amounts: number[];
  results?: Promise<ConsumeResult[]>;
}

/**
 * Joins the consumes of one counter asked for before its write runs (a client's requests arriving in
 * the same turn of the event loop, all on its key's counter) into one statement of their sum. When the
 * sum fits under the limit, each consume is answered the count it would have had run alone, in the
 * order asked; when it does not, each runs alone, in that order, in the same transaction. So every
 * answer is what the single statements, one after another, would have given: exact, as before. At
 * saturation on one key this saves all but one upsert of a turn's (about 5 µs a keyed request).
 *
 * `write` runs its work in a transaction and resolves with its result once committed (the store's
 * group commit); `count` reads a counter, for a consume refused.
 */
export function joinConsumes(
  write: <T>(work: () => T) => Promise<T>,
  consumeOnce: ConsumeOnce,
  count: (key: string) => number,
): (key: string, limit: number, expiresAt: number, amount: number) => Promise<ConsumeResult> {
  const open = new Map<string, Group>();

  const runAlone = (group: Group, amount: number): ConsumeResult => {
    const counted = consumeOnce(group.key, group.limit, group.expiresAt, amount);
    return counted === undefined
      ? { allowed: false, count: count(group.key) }
      : { allowed: true, count: counted };
  };
  const run = (group: Group): ConsumeResult[] => {
    const { amounts } = group;
    if (amounts.length > 1) {
      const total = amounts.reduce((sum, amount) => sum + amount, 0);
      const counted = consumeOnce(group.key, group.limit, group.expiresAt, total);
      if (counted !== undefined) {
        let count = counted - total;
        return amounts.map((amount) => {
          count += amount;
          return { allowed: true, count };
        });
      }
    }
    return amounts.map((amount) => runAlone(group, amount));
  };

  return async (key, limit, expiresAt, amount) => {
    const id = `${limit}:${expiresAt}:${key}`;
    let group = open.get(id);
    if (group === undefined) {
      const made: Group = { key, limit, expiresAt, amounts: [] };
      open.set(id, made);
      // Closed to newcomers once its work starts; should the commit be tried again (the database
      // busy), the work runs again over the same consumes.
      const close = (): void => {
        if (open.get(id) === made) open.delete(id);
      };
      made.results = write(() => {
        close();
        return run(made);
      });
      // A write refused before its work ran (the store closed, the batch failed) closes it too.
      made.results.catch(close);
      group = made;
    }
    const index = group.amounts.push(amount) - 1;
    const results = await (group.results as Promise<ConsumeResult[]>);
    return results[index] as ConsumeResult;
  };
}

import { describe, expect, it } from "vitest";
import { consumeInOrder, joinConsumes } from "../../../server/store/joined-consumes.ts";

/** Counters in a map, consumed one statement at a time as the SQL upsert does (no expiry here). */
function counters() {
  const counts = new Map<string, number>();
  let statements = 0;
  return {
    counts,
    statements: () => statements,
    consumeOnce(key: string, limit: number, _expiresAt: number, amount: number): number | undefined {
      statements += 1;
      const next = (counts.get(key) ?? 0) + amount;
      if (next > limit) return undefined;
      counts.set(key, next);
      return next;
    },
    count: (key: string) => counts.get(key) ?? 0,
  };
}

/** A group commit: the work asked for in one turn runs together at its end. */
function turnWriter(options: { failBatches?: number } = {}) {
  let failing = options.failBatches ?? 0;
  let batch: { work: () => unknown; resolve: (value: never) => void; reject: (error: unknown) => void }[] =
    [];
  return <T>(work: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (batch.length === 0) {
        setImmediate(() => {
          const writes = batch;
          batch = [];
          const fail = failing > 0;
          failing -= 1;
          for (const write of writes) {
            if (fail) write.reject(new Error("disk full"));
            else write.resolve(write.work() as never);
          }
        });
      }
      batch.push({ work, resolve: resolve as (value: never) => void, reject });
    });
}

/** Consumes joined per turn over fresh counters, each group written by one turn's commit. */
function joinedCounters() {
  const model = counters();
  return { model, consume: joinConsumes(turnWriter(), consumeInOrder(model.consumeOnce, model.count)) };
}

describe("joinConsumes", () => {
  it("answers a turn's consumes of one counter with one statement when their sum fits", async () => {
    const { model, consume } = joinedCounters();
    const results = await Promise.all([1, 2, 1, 3].map((amount) => consume("usage:k", 10, 1, amount)));
    expect(results).toEqual([
      { allowed: true, count: 1 },
      { allowed: true, count: 3 },
      { allowed: true, count: 4 },
      { allowed: true, count: 7 },
    ]);
    expect(model.statements()).toBe(1);
    // The next turn starts a new group.
    expect(await consume("usage:k", 10, 1, 3)).toEqual({ allowed: true, count: 10 });
    expect(model.statements()).toBe(2);
  });

  it("runs each alone, in order, when the sum does not fit, as one statement after another would", async () => {
    const { consume } = joinedCounters();
    const results = await Promise.all([4, 4, 3, 1].map((amount) => consume("usage:k", 9, 1, amount)));
    expect(results).toEqual([
      { allowed: true, count: 4 },
      { allowed: true, count: 8 },
      { allowed: false, count: 8 },
      { allowed: true, count: 9 },
    ]);
  });

  it("keeps counters, limits and windows apart", async () => {
    const { model, consume } = joinedCounters();
    const results = await Promise.all([
      consume("usage:a", 5, 1, 1),
      consume("usage:b", 5, 1, 1),
      consume("usage:a", 5, 2, 1),
      consume("usage:a", 6, 1, 1),
    ]);
    expect(results.map((result) => result.count)).toEqual([1, 1, 2, 3]);
    expect(model.statements()).toBe(4);
  });

  it("keeps the order asked when one counter is asked with another limit in the same turn", async () => {
    const { consume } = joinedCounters();
    const results = await Promise.all([
      consume("usage:k", 5, 1, 3),
      consume("usage:k", 6, 1, 3),
      consume("usage:k", 5, 1, 2),
      consume("usage:k", 5, 2, 1),
    ]);
    expect(results).toEqual([
      { allowed: true, count: 3 },
      { allowed: true, count: 6 },
      { allowed: false, count: 6 },
      { allowed: false, count: 6 },
    ]);
  });

  it("fails only the consumes asked while a write throws, and opens a new group after", async () => {
    const model = counters();
    let throws = true;
    const batched = turnWriter();
    const write = <T>(work: () => T): Promise<T> => {
      if (throws) {
        throws = false;
        throw new Error("no checkpoint thread");
      }
      return batched(work);
    };
    const consume = joinConsumes(write, consumeInOrder(model.consumeOnce, model.count));
    await expect(consume("usage:k", 5, 1, 1)).rejects.toThrow(/no checkpoint thread/);
    expect(await consume("usage:k", 5, 1, 1)).toEqual({ allowed: true, count: 1 });
  });

  it("fails every consume of a batch that failed, and does not keep the group open after", async () => {
    const model = counters();
    const consume = joinConsumes(
      turnWriter({ failBatches: 1 }),
      consumeInOrder(model.consumeOnce, model.count),
    );
    const both = [consume("usage:k", 5, 1, 1), consume("usage:k", 5, 1, 1)];
    for (const result of both) await expect(result).rejects.toThrow(/disk full/);
    expect(model.counts.size).toBe(0);
    expect(await consume("usage:k", 5, 1, 1)).toEqual({ allowed: true, count: 1 });
  });
});

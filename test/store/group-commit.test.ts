import { describe, expect, it } from "vitest";
import { createGroupCommit } from "../../server/store/group-commit.ts";

/** A flush that records its batches and lands when the test says so. */
function manualFlush() {
  const batches: string[][] = [];
  const landings: Array<(error?: Error) => void> = [];
  const flush = (keys: ReadonlySet<string>) => {
    batches.push([...keys]);
    return new Promise<void>((resolve, reject) => {
      landings.push((error) => (error ? reject(error) : resolve()));
    });
  };
  const land = async (error?: Error) => {
    await until(() => landings.length > 0);
    landings.shift()?.(error);
  };
  return { flush, batches, land };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("group commit", () => {
  it("flushes the commits of one turn together, and those made meanwhile in the next flush", async () => {
    const { flush, batches, land } = manualFlush();
    const commits = createGroupCommit(flush);
    const first = Array.from({ length: 50 }, (_, i) => commits.commit(`k${i % 10}`));
    await until(() => batches.length === 1);
    const second = Array.from({ length: 50 }, (_, i) => commits.commit(`k${i % 3}`));
    expect(batches).toEqual([["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"]]);
    let answered = 0;
    for (const promise of [...first, ...second]) {
      void promise.then(() => answered++);
    }
    await land();
    await Promise.all(first);
    expect(answered).toBe(50);
    await land();
    await Promise.all(second);
    expect(batches).toEqual([batches[0], ["k0", "k1", "k2"]]);
    await commits.drain();
  });

  it("fails only the batch whose flush failed; pending() waits for it without failing", async () => {
    const { flush, land } = manualFlush();
    const commits = createGroupCommit(flush);
    expect(commits.pending("a")).toBeUndefined();
    const failing = commits.commit("a");
    const waiting = commits.pending("a");
    expect(commits.pending("b")).toBeUndefined();
    await land(new Error("disk full"));
    await expect(failing).rejects.toThrow("disk full");
    await expect(waiting).resolves.toBeUndefined();
    const retried = commits.commit("a");
    await land();
    await expect(retried).resolves.toBeUndefined();
  });

  it("drain() waits for every batch, also those committed while it waits", async () => {
    const { flush, land, batches } = manualFlush();
    const commits = createGroupCommit(flush);
    await commits.drain();
    void commits.commit("a");
    let drained = false;
    const draining = commits.drain().then(() => {
      drained = true;
    });
    await until(() => batches.length === 1);
    void commits.commit("b");
    await land();
    await until(() => batches.length === 2);
    expect(drained).toBe(false);
    await land();
    await draining;
    expect(batches).toEqual([["a"], ["b"]]);
  });
});

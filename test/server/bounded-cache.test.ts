import { describe, expect, it } from "vitest";
import { createBoundedCache } from "../../server/bounded-cache.ts";

describe("the bounded cache", () => {
  it("forgets the oldest insertion past its count", () => {
    const cache = createBoundedCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("a", 3);
    cache.set("c", 4);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([3, undefined, 4]);
  });

  it("with a weight, holds at most that much, and never stores what is heavier than it all", () => {
    const cache = createBoundedCache<string, string>(10, (value) => value.length);
    cache.set("a", "aaaa");
    cache.set("b", "bbbb");
    expect(cache.set("c", "cccc")).toBe("cccc");
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([undefined, "bbbb", "cccc"]);
    expect(cache.set("huge", "x".repeat(11))).toBe("x".repeat(11));
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.get("b")).toBe("bbbb");
    cache.delete("b");
    cache.set("d", "dddddd");
    expect([cache.get("c"), cache.get("d")]).toEqual(["cccc", "dddddd"]);
  });
});

describe("a value that grows after it is stored", () => {
  it("keeps the weight it was stored with until it is set again, so the total never drifts", () => {
    const cache = createBoundedCache<string, number[]>(10, (value) => value.length);
    const grows = [1, 2];
    cache.set("grows", grows);
    cache.set("other", [1, 2, 3, 4]);
    grows.push(3, 4, 5, 6);
    // Set again: now 6 of 10, so the other entry (4) still fits; removing it must subtract 4, not 6.
    cache.set("grows", grows);
    expect(cache.get("other")).toEqual([1, 2, 3, 4]);
    cache.delete("grows");
    cache.set("late", [1, 2, 3, 4, 5, 6]);
    expect([cache.get("other"), cache.get("late")]).toEqual([
      [1, 2, 3, 4],
      [1, 2, 3, 4, 5, 6],
    ]);
  });
});

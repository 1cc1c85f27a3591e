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

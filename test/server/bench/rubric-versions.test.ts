import { describe, expect, it } from "vitest";
import { DEFAULT_FIRM_RUBRIC, FIRM_RUBRIC_VERSIONS_KEPT } from "../../../pipeline/domain/bench-rubric.ts";
import type { FirmDay } from "../../../pipeline/domain/bench-scoring.ts";
import { createKeyService } from "../../../server/access/key-service.ts";
import { createBenchStore } from "../../../server/bench/bench-store.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";

const day = (date: string, version: number): FirmDay => ({
  date,
  screened: 0,
  public_rubric_version: "2026.11.3",
  firm_rubric_version: version,
  picks: [],
  hits: [],
});

describe("pruning a firm's rubric versions", () => {
  it("keeps the newest 100 and every version a stored day names, days stored before the marks included", async () => {
    const store = await createMemoryStore();
    const bench = createBenchStore(store, createKeyService({ store }));
    const add = () => bench.addRubric("acme", (version) => ({ ...DEFAULT_FIRM_RUBRIC, version }));
    for (let i = 0; i < 3; i++) await add();
    await bench.setDay("acme", day("2026-11-18", 2));
    // A day written as the store held them before versions were marked as named.
    await store.setItem("bench:acme:day:2026-11-17", day("2026-11-17", 3));
    for (let i = 0; i < 150; i++) await add();
    const page = await bench.rubrics("acme", { limit: 1000 });
    expect(page.current?.version).toBe(153);
    expect(page.versions.map((rubric) => rubric.version)).toEqual([
      ...Array.from({ length: FIRM_RUBRIC_VERSIONS_KEPT }, (_, i) => 153 - i),
      3,
      2,
    ]);
    expect(page.next_cursor).toBeNull();
    await store.close();
  });
});

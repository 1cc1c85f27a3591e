import { describe, expect, it } from "vitest";
import { assembleDay, type DayInput } from "../../../pipeline/domain/day-assembly.ts";
import { DEFAULT_SELECTION } from "../../../pipeline/domain/selection.ts";
import { buildDailySnapshot, type DailySnapshot } from "../../../pipeline/domain/snapshot.ts";
import { publishedRubric } from "../../helpers/rubric.ts";

const day = (date: string, source = "sample"): DailySnapshot =>
  buildDailySnapshot({
    date,
    generatedAt: `${date}T06:00:00.000Z`,
    sample: true,
    source,
    rubricVersion: publishedRubric.version,
    selection: DEFAULT_SELECTION,
    counts: { screened: 0, skipped: 0, duplicates: 0, kept: 0 },
    picks: [],
  });

const input = (date: string, published: DailySnapshot[], refreshed: DailySnapshot[] = []): DayInput => ({
  date,
  generatedAt: `${date}T07:00:00.000Z`,
  batch: { source: "file:day.jsonl", sample: false, candidates: [], skipped: [], duplicates: 2 },
  rubric: publishedRubric,
  selection: DEFAULT_SELECTION,
  picks: [],
  published,
  refreshed,
});

describe("assembleDay", () => {
  it("adds today, counts what the batch held, and makes it the latest", () => {
    const result = assembleDay(input("2026-11-20", [day("2026-11-18"), day("2026-11-19")]));
    expect(result.days.map((each) => each.date)).toEqual(["2026-11-18", "2026-11-19", "2026-11-20"]);
    expect(result.latest.date).toBe("2026-11-20");
    expect(result.counts).toEqual({ screened: 0, skipped: 0, duplicates: 2, kept: 0 });
    expect(result.snapshot.source).toBe("file:day.jsonl");
    expect(result.recent.generated_at).toBe("2026-11-20T07:00:00.000Z");
  });

  it("replaces a rerun day and the refreshed days, and leaves latest on the newest day", () => {
    const refreshed = day("2026-11-19", "refreshed");
    const result = assembleDay(
      input("2026-11-18", [day("2026-11-18"), day("2026-11-19"), day("2026-11-20")], [refreshed]),
    );
    expect(result.days.map((each) => [each.date, each.source])).toEqual([
      ["2026-11-19", "refreshed"],
      ["2026-11-20", "sample"],
      ["2026-11-18", "file:day.jsonl"],
    ]);
    expect(result.latest.date).toBe("2026-11-20");
  });
});

import { describe, expect, it } from "vitest";
import {
  type SimDay,
  type SimSettings,
  simulateReaders,
} from "../../../pipeline/domain/reader-simulation.ts";
import { readSimDays } from "../../../pipeline/reader-days.ts";
import { loadRelevanceModel, newestModelPath } from "../../../pipeline/relevance-file.ts";
import { curation } from "../../helpers/curation.ts";

// The simulation on a small setting: three labelled days, each held out in turn, a 12-paper library,
// one day of ratings, a small grid chosen inside the folds. The full setting runs in
// `picks eval --simulate-readers` and the bench.
const SMALL: SimSettings = {
  library: 12,
  rating_days: 1,
  ratings_per_day: 5,
  baseline: false,
  grid: {
    shrinkage: [3e-4, 1e-2],
    background: [400],
    personal: [1, 3],
    mustRead: [0],
    sure: [0.5],
    likedWeight: [1],
    dislikeShare: [0, 0.5],
  },
};

describe("simulated readers", () => {
  it("gives the cold reader the global order, and governance and substrate readers a better list", async () => {
    const dates = ["2026-04-22", "2026-05-20", "2026-06-03"];
    const days = await readSimDays(dates.map((date) => curation(`labels-${date}.json`)));
    const { model, vocabulary } = await loadRelevanceModel(await newestModelPath());
    const report = simulateReaders(days, model, vocabulary, SMALL);
    const reader = (name: string) => report.readers.find((entry) => entry.reader === name);
    expect(reader("cold")?.cold_equals_global_days).toBe(3);
    expect(reader("cold")?.precision5.personal).toBe(reader("cold")?.precision5.global);
    for (const name of ["governance", "substrate"]) {
      const summary = reader(name);
      expect(summary?.days).toBe(3);
      expect(summary?.precision5.personal).toBeGreaterThan(summary?.precision5.global as number);
      expect(summary?.learning_curve).toHaveLength(2);
    }
    expect(report.days).toHaveLength(12);
    expect(report.chosen.map((entry) => entry.date)).toEqual(dates);

    // Nested: a held-out day's settings are chosen on the other days alone, so its own labels, turned
    // upside down, leave them as they were (and change what is measured on it).
    const flipped: SimDay[] = days.map((day) =>
      day.date !== "2026-06-03"
        ? day
        : {
            ...day,
            papers: day.papers.map((paper) => ({
              ...paper,
              label: paper.label === 0 ? 2 : 0,
              group: paper.group === "governance" ? "substrate" : "governance",
            })),
          },
    );
    const again = simulateReaders(flipped, model, vocabulary, { ...SMALL, held_out: ["2026-06-03"] });
    expect(again.chosen).toEqual(report.chosen.filter((entry) => entry.date === "2026-06-03"));
    expect(again.days.find((day) => day.reader === "governance")?.precision5).not.toEqual(
      report.days.find((day) => day.reader === "governance" && day.date === "2026-06-03")?.precision5,
    );
  }, 240_000);
});

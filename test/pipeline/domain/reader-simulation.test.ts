import { describe, expect, it } from "vitest";
import { simulateReaders } from "../../../pipeline/domain/reader-simulation.ts";
import { readSimDays } from "../../../pipeline/reader-days.ts";
import { loadRelevanceModel, newestModelPath } from "../../../pipeline/relevance-file.ts";
import { curation } from "../../helpers/curation.ts";

// The simulation on a small setting: three labelled days, each held out in turn, a 12-paper library,
// one day of ratings. The full setting runs in `picks eval --simulate-readers` and the bench.
describe("simulated readers", () => {
  it("gives the cold reader the global order, and governance and substrate readers a better list", async () => {
    const dates = ["2026-04-22", "2026-05-20", "2026-06-03"];
    const days = await readSimDays(dates.map((date) => curation(`labels-${date}.json`)));
    const { model, vocabulary } = await loadRelevanceModel(await newestModelPath());
    const report = simulateReaders(days, model, vocabulary, {
      library: 12,
      rating_days: 1,
      ratings_per_day: 5,
      baseline: false,
    });
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
  }, 120_000);
});

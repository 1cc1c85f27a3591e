// The labelled days as the readers' simulation reads them: each listing's papers with the expert's
// label, group and REG FIT (`picks eval --simulate-readers`, the bench and its test).

import type { SimDay } from "./domain/reader-simulation.ts";
import { EvalInputError, readLabelledListing } from "./labels-file.ts";

export async function readSimDays(
  labelsPaths: readonly string[],
  listings: readonly string[] = [],
): Promise<SimDay[]> {
  const days: SimDay[] = [];
  for (const path of labelsPaths) {
    const read = await readLabelledListing(path, listings);
    if (read.date === null)
      throw new EvalInputError(`labels file ${path}: its name carries no date (labels-YYYY-MM-DD.json)`);
    if (days.some((day) => day.date === read.date)) {
      throw new EvalInputError(`labels file ${path}: day ${read.date} is already labelled`);
    }
    const papers = read.batch.candidates.flatMap((candidate) => {
      const label = read.labels.labels[candidate.id];
      return label
        ? [
            {
              id: candidate.id,
              title: candidate.title,
              summary: candidate.summary,
              categories: candidate.categories,
              authors: candidate.authors,
              label: label.label,
              group: label.group,
              reg_fit: label.reg_fit,
            },
          ]
        : [];
    });
    days.push({ date: read.date, papers });
  }
  return days;
}

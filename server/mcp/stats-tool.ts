import { z } from "zod";
import { StatsSchema } from "../../pipeline/domain/snapshot.ts";
import type { McpSnapshots } from "./fresh-snapshots.ts";
import { readPublished } from "./published-file.ts";
import type { ReadOnlyTool } from "./read-only-tool.ts";

export const StatsInputSchema = z.strictObject({});

export function statsTool(
  snapshots: McpSnapshots,
): ReadOnlyTool<typeof StatsInputSchema, typeof StatsSchema> {
  return {
    name: "labs_stats",
    title: "Pipeline statistics",
    description:
      "Counts over every published day: days, first and latest date, candidates screened, picks kept, " +
      "keep rate, mean score of each axis and the REG FIT histogram.",
    input: StatsInputSchema,
    output: StatsSchema,
    run: () => readPublished(snapshots, "stats", StatsSchema),
  };
}

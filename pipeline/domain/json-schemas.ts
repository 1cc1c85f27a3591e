import { z } from "zod";
import { RankerCardSchema } from "./ranker-card.ts";
import { RubricSchema } from "./rubric.ts";
import { RunRecordSchema } from "./run-record.ts";
import { ScreenedDaySchema } from "./screened.ts";
import { DailySnapshotSchema, RecentSchema, StatsSchema } from "./snapshot.ts";

/** The JSON Schemas of every published file, generated from the zod schemas (never kept by hand). */
export const FILE_SCHEMAS = {
  daily: z.toJSONSchema(DailySnapshotSchema),
  recent: z.toJSONSchema(RecentSchema),
  stats: z.toJSONSchema(StatsSchema),
  axes: z.toJSONSchema(RubricSchema),
  ranker: z.toJSONSchema(RankerCardSchema),
  run: z.toJSONSchema(RunRecordSchema),
  screened: z.toJSONSchema(ScreenedDaySchema),
} as const;

export type FileKind = keyof typeof FILE_SCHEMAS;

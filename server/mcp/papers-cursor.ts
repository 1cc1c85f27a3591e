import { z } from "zod";
import { type AxisId, AxisIdSchema } from "../../pipeline/domain/score.ts";

/** Where the next page starts, for the same filters over the same window of days. */
export interface PapersCursor {
  offset: number;
  /** The newest day of the first page: later pages keep that window though a new day may appear. */
  to: string;
  days: number;
  axis: AxisId | null;
  min_score: number;
  min_reg_fit: number;
  /** What the pages list: every screened paper; absent, the picks. */
  scope?: "screened";
}

const CursorSchema = z.object({
  v: z.literal(1),
  o: z.int().min(0),
  t: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  q: z.tuple([z.int(), AxisIdSchema.nullable(), z.int(), z.int()]),
  // Only on a screened query's cursors: the picks' cursors are as they were before scopes.
  s: z.literal("screened").optional(),
});

/** Opaque to agents on purpose: they pass it back unchanged, so its form may change with a version. */
export function encodeCursor(cursor: PapersCursor): string {
  const wire: z.infer<typeof CursorSchema> = {
    v: 1,
    o: cursor.offset,
    t: cursor.to,
    q: [cursor.days, cursor.axis, cursor.min_score, cursor.min_reg_fit],
    ...(cursor.scope === "screened" ? { s: "screened" as const } : {}),
  };
  return Buffer.from(JSON.stringify(wire)).toString("base64url");
}

export function decodeCursor(text: string): PapersCursor | undefined {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const parsed = CursorSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { o, t, q, s } = parsed.data;
  return {
    offset: o,
    to: t,
    days: q[0],
    axis: q[1],
    min_score: q[2],
    min_reg_fit: q[3],
    ...(s === undefined ? {} : { scope: s }),
  };
}

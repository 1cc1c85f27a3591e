import { z } from "zod";
import { type PapersPage, PapersQuerySchema } from "../../pipeline/domain/papers-query.ts";
import type { Pick } from "../../pipeline/domain/pick.ts";
import { AxisIdSchema } from "../../pipeline/domain/score.ts";
import { type ScreenedListItem, ScreenedListItemSchema } from "../../pipeline/domain/screened-answers.ts";
import { encodeCursor } from "./papers-cursor.ts";
import { compactPick, EXTERNAL_CONTENT, ExternalContentSchema, PickViewSchema } from "./pick-view.ts";

/**
 * One answer stays under this many characters of JSON, about 6,000 tokens at four characters a token:
 * well under the 10,000 some clients allow a tool answer. A page ends early rather than cross it.
 */
export const ANSWER_BUDGET_CHARS = 24_000;
// Room for everything but the picks: applied filters, counts, notes, the cursor and the notice.
const ENVELOPE_RESERVE_CHARS = 1_500;

const SCREENED_ADVERTISED = { arxiv_id: true, date: true, title: true, picked: true, reason: true } as const;

export const PapersOutputSchema = z.object({
  applied: PapersQuerySchema.extend({
    axis: AxisIdSchema.nullable(),
    compact: z.boolean(),
    from: z.string().nullable().describe("oldest day searched"),
    to: z.string().nullable().describe("newest day searched"),
    capped: z.array(z.enum(["days", "limit"])).describe("requested values that were lowered"),
    scope: z.literal("screened").optional(),
  }),
  total: z.int().min(0).describe("picks matching the filters"),
  offset: z.int().min(0).describe("picks before this page"),
  returned: z.int().min(0),
  has_more: z.boolean(),
  next_cursor: z.string().nullable().describe("pass as `cursor` for the next page; null on the last"),
  notes: z.array(z.string()),
  external_content: ExternalContentSchema,
  picks: z.array(PickViewSchema),
  // Advertised by the fields an agent reads first (the rest are GET /v1/papers' item fields): the
  // tools' list stays within its budget of tokens.
  screened: z.array(ScreenedListItemSchema.pick(SCREENED_ADVERTISED).loose()).optional(),
});
export type PapersOutput = z.infer<typeof PapersOutputSchema>;

/** Takes picks in order until the next one would push the answer past the budget; always at least one. */
function fitBudget<V>(picks: readonly V[]): V[] {
  const fitted: V[] = [];
  let size = ENVELOPE_RESERVE_CHARS;
  for (const pick of picks) {
    const length = JSON.stringify(pick).length + 1;
    if (fitted.length > 0 && size + length > ANSWER_BUDGET_CHARS) break;
    fitted.push(pick);
    size += length;
  }
  return fitted;
}

interface PageOptions {
  offset: number;
  compact: boolean;
  publishedDays: number;
  pageMax: number;
  tier?: string | null;
}

/** Turns a page of `queryPapers` into the tool's answer: trimmed to the budget, with a cursor and notes. */
export function papersAnswer(page: PapersPage<Pick>, options: PageOptions): PapersOutput {
  const views = options.compact ? page.picks.map(compactPick) : page.picks;
  const { envelope, items } = pageEnvelope(page, views, options, undefined);
  return { ...envelope, picks: items };
}

/** As papersAnswer, for a page of screened papers (list items: compact whatever `compact` says). */
export function screenedPapersAnswer(page: PapersPage<ScreenedListItem>, options: PageOptions): PapersOutput {
  const { envelope, items } = pageEnvelope(page, page.picks, options, "screened");
  return { ...envelope, picks: [], screened: items };
}

function pageEnvelope<V>(
  page: PapersPage<unknown>,
  views: readonly V[],
  options: PageOptions,
  scope: "screened" | undefined,
): { envelope: Omit<PapersOutput, "picks" | "screened">; items: V[] } {
  const { applied } = page;
  const picks = fitBudget(views);
  const next = options.offset + picks.length;
  const hasMore = next < page.total;
  const notes: string[] = [];
  if (options.publishedDays === 0) {
    notes.push("nothing is published in this folder yet: the operator runs `picks curate`");
  }
  if (applied.capped.includes("limit")) {
    notes.push(
      `limit lowered to ${options.pageMax}, the most one answer carries; follow next_cursor for more`,
    );
  }
  if (applied.capped.includes("days")) {
    notes.push(`days lowered to ${applied.days}, the history the ${options.tier ?? "caller's"} tier reaches`);
  }
  if (picks.length < views.length) {
    notes.push(
      `page ended after ${picks.length} picks to keep this answer under about ` +
        `${ANSWER_BUDGET_CHARS / 4} tokens; follow next_cursor for the rest`,
    );
  }
  if (applied.axis !== undefined && applied.min_score > 5) {
    notes.push(`min_score ${applied.min_score} is above the axis maximum of 5, so no pick can match`);
  }
  const filters = {
    days: applied.days,
    axis: applied.axis ?? null,
    min_score: applied.min_score,
    min_reg_fit: applied.min_reg_fit,
  };
  const scoped = scope === undefined ? {} : { scope };
  const envelope = {
    applied: {
      days: filters.days,
      axis: filters.axis,
      min_score: filters.min_score,
      min_reg_fit: filters.min_reg_fit,
      limit: applied.limit,
      compact: options.compact,
      from: applied.from,
      to: applied.to,
      capped: applied.capped,
      ...scoped,
    },
    total: page.total,
    offset: options.offset,
    returned: picks.length,
    has_more: hasMore,
    next_cursor:
      hasMore && applied.to !== null
        ? encodeCursor({ offset: next, to: applied.to, ...filters, ...scoped })
        : null,
    notes,
    external_content: EXTERNAL_CONTENT,
  };
  return { envelope, items: picks };
}

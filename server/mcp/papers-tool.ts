import { z } from "zod";
import { type PapersQuery, PapersQuerySchema, queryPapers } from "../../pipeline/domain/papers-query.ts";
import type { Pick } from "../../pipeline/domain/pick.ts";
import { type PapersScope, PapersScopeSchema } from "../../pipeline/domain/screened-answers.ts";
import type { HeldDay } from "../snapshots/held-days.ts";
import { queryScreened, type ScreenedItems } from "../snapshots/screened-papers.ts";
import { DayUnavailableError } from "../snapshots/snapshot-cache.ts";
import type { McpSnapshots } from "./fresh-snapshots.ts";
import { decodeCursor, type PapersCursor } from "./papers-cursor.ts";
import { PapersOutputSchema, papersAnswer, screenedPapersAnswer } from "./papers-page.ts";
import { answer, type ReadOnlyTool, refuse, type ToolAnswer } from "./read-only-tool.ts";
import { OWNER_ACCESS, type ToolAccess } from "./tool-access.ts";

/** Eight real compact picks (2.2k characters on average, 2.9k at most) fit one answer's budget. */
export const PAGE_DEFAULT = 8;
/** The most picks one answer carries (the free tier's page); a larger `limit` is lowered and reported. */
export const PAGE_MAX = 25;
/** Cursors this server writes are about 100 characters. */
const CURSOR_MAX_LENGTH = 512;
const FILTERS = ["days", "axis", "min_score", "min_reg_fit"] as const;

export const PapersInputSchema = z.strictObject({
  ...PapersQuerySchema.shape,
  limit: PapersQuerySchema.shape.limit
    .unwrap()
    .default(PAGE_DEFAULT)
    .describe(
      `picks per page; at most ${PAGE_MAX} are returned, and fewer when they would not fit one answer`,
    ),
  compact: z
    .boolean()
    .default(true)
    .describe("scores without their evidence and rationale, citations without paper lists (see labs_paper)"),
  scope: PapersScopeSchema,
  cursor: z
    .string()
    .min(1)
    .max(CURSOR_MAX_LENGTH)
    .optional()
    .describe("next_cursor of the previous page, to continue the same query"),
});
type PapersInput = z.output<typeof PapersInputSchema>;

interface Start {
  scope: PapersScope;
  days: readonly HeldDay[];
  query: PapersQuery;
  offset: number;
  /** The tier's history left from the page's newest day: a cursor's window ends no earlier than the tier's. */
  historyDays: number | null;
}

const DAY_MS = 86_400_000;

function describeCursor(cursor: PapersCursor): string {
  const axis = cursor.axis === null ? "" : `, axis ${cursor.axis}`;
  const scope = cursor.scope === undefined ? "" : `, scope ${cursor.scope}`;
  return `days ${cursor.days}${axis}, min_score ${cursor.min_score}, min_reg_fit ${cursor.min_reg_fit}${scope}`;
}

/**
 * Where a page starts: the first page of the filters given, or the page a cursor points to, over the
 * window of days the cursor's first page saw (a day published since does not shift later pages).
 */
function startOf(
  args: PapersInput,
  given: ReadonlySet<string>,
  days: readonly HeldDay[],
  access: ToolAccess,
): ToolAnswer<Start> {
  const { days: history, axis, min_score, min_reg_fit, limit } = args;
  if (args.cursor === undefined) {
    const query = { days: history, axis, min_score, min_reg_fit, limit };
    return answer({ scope: args.scope, days, query, offset: 0, historyDays: access.historyDays });
  }
  const cursor = decodeCursor(args.cursor);
  if (!cursor) {
    return refuse(
      "`cursor` is not one this server issued; pass next_cursor back unchanged, or leave cursor out " +
        "to start from the first page",
    );
  }
  const conflicting: string[] = FILTERS.filter(
    (name) => given.has(name) && (args[name] ?? null) !== cursor[name],
  );
  const cursorScope = cursor.scope ?? "picks";
  if (given.has("scope") && args.scope !== cursorScope) conflicting.push("scope");
  if (conflicting.length > 0) {
    return refuse(
      `this cursor continues a query with ${describeCursor(cursor)}, not the ${conflicting.join(", ")} ` +
        "given; pass the cursor with the same filters or none, or leave cursor out to start a new query",
    );
  }
  const first = days.findIndex((day) => day.date <= cursor.to);
  if (days[first]?.date !== cursor.to) {
    return refuse(
      `the day this cursor's pages end on (${cursor.to}) is no longer published; ` +
        "call labs_papers without cursor to start again",
    );
  }
  // The cursor is the client's text: its day is checked against the tier's history back from the latest
  // day, or a forged one would read any day.
  const latest = days[0]?.date ?? cursor.to;
  const lag = Math.round((Date.parse(latest) - Date.parse(cursor.to)) / DAY_MS);
  const historyDays = access.historyDays === null ? null : access.historyDays - lag;
  if (historyDays !== null && historyDays < 1) {
    return refuse(
      `this cursor's pages end on ${cursor.to}, outside the ${access.historyDays} days of history the ` +
        `${access.tier ?? "caller's"} tier reads back from the latest day (${latest}); pass next_cursor back ` +
        "unchanged, or call labs_papers without cursor to start again",
    );
  }
  return answer({
    scope: cursorScope,
    historyDays,
    days: days.slice(first),
    query: {
      days: cursor.days,
      axis: cursor.axis ?? undefined,
      min_score: cursor.min_score,
      min_reg_fit: cursor.min_reg_fit,
      limit,
    },
    offset: cursor.offset,
  });
}

export function papersTool(
  snapshots: McpSnapshots,
  access: ToolAccess = OWNER_ACCESS,
): ReadOnlyTool<typeof PapersInputSchema, typeof PapersOutputSchema> {
  // Each screened file's list items, made once while its parse is kept.
  const screenedLists: ScreenedItems = new WeakMap();
  return {
    name: "labs_papers",
    title: "Research picks",
    description:
      "AI research papers kept by the daily curation, newest day first, then by rank. The filters of " +
      "GET /v1/papers: `days` of history back from the latest published day, `min_score` on the total " +
      "(0..45) or on one `axis` (0..5), `min_reg_fit` (1..3). " +
      `Pages of up to ${PAGE_MAX} picks (default ${PAGE_DEFAULT}): follow \`next_cursor\`. ` +
      "Compact by default (scores without evidence); labs_paper gives one pick in full. " +
      "`scope: screened`: every screened paper instead, with `picked` and `reason` (in `screened`).",
    input: PapersInputSchema,
    output: PapersOutputSchema,
    hints: {
      axis: (value) => `unknown axis \`${String(value)}\`; call labs_axes to see the nine axes A1..A9`,
    },
    async run(args, given) {
      await snapshots.refresh();
      const start = startOf(args, given, snapshots.days(), access);
      if (!start.ok) return start;
      const { days, query, offset, historyDays, scope } = start.value;
      const pageMax = Math.min(PAGE_MAX, access.maxLimit);
      const options = {
        offset,
        compact: args.compact,
        publishedDays: days.length,
        pageMax,
        tier: access.tier,
      };
      if (scope === "screened") {
        try {
          const caps = { historyDays, maxLimit: pageMax };
          const page = await queryScreened(snapshots, days, query, caps, screenedLists, offset);
          return answer(screenedPapersAnswer(page, options));
        } catch (error) {
          if (!(error instanceof DayUnavailableError)) throw error;
          return refuse(`${error.message}; try again shortly`);
        }
      }
      const page = queryPapers(days, query, { historyDays, maxLimit: pageMax }, offset);
      // Days are held as list items; a page (at most PAGE_MAX picks) reads its picks back whole.
      let picks: Pick[];
      try {
        picks = await snapshots.fullPicks(page.picks);
      } catch (error) {
        if (!(error instanceof DayUnavailableError)) throw error;
        return refuse(`${error.message}; try again shortly`);
      }
      return answer(papersAnswer({ ...page, picks }, options));
    },
  };
}

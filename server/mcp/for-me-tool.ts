import { z } from "zod";
import { withinHistory } from "../../pipeline/domain/papers-query.ts";
import { PersonalPicksQuerySchema, PersonalPicksSchema } from "../../pipeline/domain/reader-answers.ts";
import { checkDateParam } from "../validation/date-param.ts";
import type { McpSnapshots } from "./fresh-snapshots.ts";
import { answer, type ReadOnlyTool, refuse } from "./read-only-tool.ts";
import type { ToolAccess } from "./tool-access.ts";

export const FOR_ME_TOOL = "labs_for_me";

/**
 * The caller's list of a day as GET /v1/me/picks answers it (its JSON text, kept per key and profile
 * version by the reader service); null when the day has no screened papers. Bound to one key: only the
 * hosted server has one, so `picks mcp` (local files, no key) has no such tool.
 */
export type ReaderPicks = (date: string, limit: number, capped: boolean) => Promise<string | null>;

const dateShape = PersonalPicksQuerySchema.shape.date;

// GET /v1/me/picks's query, with its date check inside the schema: a malformed day fails the argument
// check, so (as a 422 spends nothing on the HTTP API) it is refused before any quota is spent.
export const ForMeInputSchema = z.strictObject({
  ...PersonalPicksQuerySchema.shape,
  date: dateShape
    .unwrap()
    .refine((value) => checkDateParam(value) === undefined)
    .optional()
    .describe(dateShape.description ?? ""),
});

export function forMeTool(
  snapshots: McpSnapshots,
  access: ToolAccess,
  reader: ReaderPicks,
): ReadOnlyTool<typeof ForMeInputSchema, typeof PersonalPicksSchema> {
  return {
    name: FOR_ME_TOOL,
    title: "Picks for you",
    description:
      "A day's screened papers in the order of this key's profile (library, ratings and follows set over the " +
      "API's /v1/me routes), the list of GET /v1/me/picks: each with `for_you` and `why_for_you` (the nearest " +
      "library or liked papers, a followed author or phrase, the global likelihood). A key with no profile " +
      "gets the day's global order (`personal: false`). `date` (YYYY-MM-DD, the latest day when absent) " +
      "within the tier's history; `limit` capped at the tier's page size.",
    input: ForMeInputSchema,
    output: PersonalPicksSchema,
    hints: {
      date: (value) => {
        const issue = typeof value === "string" ? checkDateParam(value) : undefined;
        return `\`date\`: ${issue?.msg ?? "expected a day written YYYY-MM-DD"}; leave it out for the latest day`;
      },
    },
    async run(args) {
      await snapshots.refresh();
      const latest = snapshots.days()[0]?.date;
      if (latest === undefined) return refuse("No day has been published yet; try again later");
      const date = args.date ?? latest;
      if (!withinHistory(date, latest, access.historyDays)) {
        return refuse(
          `${date} is outside the ${access.historyDays} days of history of the ${access.tier ?? "caller's"} ` +
            `tier, back from the latest day (${latest}); leave date out for the latest day`,
        );
      }
      const limit = Math.min(args.limit, access.maxLimit);
      const text = await reader(date, limit, args.limit > access.maxLimit);
      if (text === null) {
        return refuse(`No screened papers for ${date}; leave date out for the latest day (${latest})`);
      }
      return answer(JSON.parse(text));
    },
  };
}

import { z } from "zod";
import { normalizeArxivRef } from "../../pipeline/domain/arxiv-id.ts";
import { withinHistory } from "../../pipeline/domain/papers-query.ts";
import type { Pick } from "../../pipeline/domain/pick.ts";
import { DayUnavailableError } from "../snapshots/snapshot-cache.ts";
import type { McpSnapshots } from "./fresh-snapshots.ts";
import { EXTERNAL_CONTENT, ExternalContentSchema, FullPickSchema } from "./pick-view.ts";
import { answer, type ReadOnlyTool, refuse } from "./read-only-tool.ts";
import { OWNER_ACCESS, type ToolAccess } from "./tool-access.ts";

/** The longest id as people paste it (an export.arxiv.org pdf URL of an old-style id) is under 70. */
const ARXIV_REF_MAX_LENGTH = 200;

export const PaperInputSchema = z.strictObject({
  arxiv_id: z
    .string()
    .min(1)
    .max(ARXIV_REF_MAX_LENGTH)
    // Checked with the arguments, so a value that names no paper spends nothing, like a 422 on HTTP.
    .refine((ref) => normalizeArxivRef(ref) !== undefined)
    .describe("arXiv id as people paste it: 2401.12345, arXiv:2401.12345v2, or an arxiv.org abs or pdf URL"),
});

export const PaperOutputSchema = z.object({
  arxiv_id: z.string().describe("the versionless id looked up"),
  picked_on: z.array(z.string()).describe("every day this paper was a pick, newest first"),
  external_content: ExternalContentSchema,
  pick: FullPickSchema.describe("the newest pick of this paper, with the evidence behind every score"),
});

function publishedRange(snapshots: McpSnapshots): string {
  const days = snapshots.days();
  const newest = days[0]?.date;
  const oldest = days.at(-1)?.date;
  if (!newest || !oldest) return "nothing is published yet";
  return `${days.length} published days, ${oldest} to ${newest}`;
}

export function paperTool(
  snapshots: McpSnapshots,
  access: ToolAccess = OWNER_ACCESS,
): ReadOnlyTool<typeof PaperInputSchema, typeof PaperOutputSchema> {
  return {
    name: "labs_paper",
    title: "One research pick",
    description:
      "One pick by arXiv id (prefixes, abs/pdf URLs and version suffixes are fine), with its summary, " +
      "every axis score, REG FIT and the evidence behind each score.",
    input: PaperInputSchema,
    output: PaperOutputSchema,
    hints: {
      arxiv_id: (value) =>
        typeof value === "string" && value.length >= 1 && value.length <= ARXIV_REF_MAX_LENGTH
          ? `\`${value}\` is not an arXiv id; pass one like 2401.12345, arXiv:2401.12345v2 or ` +
            "https://arxiv.org/abs/2401.12345"
          : undefined,
    },
    async run(args) {
      const id = normalizeArxivRef(args.arxiv_id);
      if (id === undefined) return refuse(`\`${args.arxiv_id}\` is not an arXiv id`);
      await snapshots.refresh();
      const all = snapshots.picksOf(id);
      if (all.length === 0) {
        return refuse(
          `no pick with arXiv id \`${id}\` (${publishedRange(snapshots)}): only papers kept by the daily ` +
            "curation are published; call labs_papers to list them",
        );
      }
      const latest = snapshots.days()[0]?.date ?? "";
      const picks = all.filter((pick) => withinHistory(pick.date, latest, access.historyDays));
      const newest = picks[0];
      if (!newest) {
        return refuse(
          `\`${id}\` was picked on ${all[0]?.date}, outside the ${access.historyDays} days of history of ` +
            `the ${access.tier} tier; a key of a higher tier reaches further back`,
        );
      }
      let pick: Pick | undefined;
      try {
        [pick] = await snapshots.fullPicks([newest]);
      } catch (error) {
        if (!(error instanceof DayUnavailableError)) throw error;
        return refuse(`${error.message}; try again shortly`);
      }
      return answer({
        arxiv_id: id,
        picked_on: picks.map((item) => item.date),
        external_content: EXTERNAL_CONTENT,
        pick: pick as Pick,
      });
    },
  };
}

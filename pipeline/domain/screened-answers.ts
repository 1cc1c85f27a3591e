import { z } from "zod";
import { PaperListItemSchema, PapersListSchema } from "./api-answers.ts";
import { PapersQuerySchema } from "./papers-query.ts";
import { PickSchema } from "./pick.ts";
import { type ScreenedDay, type ScreenedPaper, ScreenedPaperSchema } from "./screened.ts";

// The API's answers with `scope=screened`: every screened paper, shaped as the picks are (a list item,
// or one paper), plus whether it was picked and why. Made from the published screened files.

/** The scopes `GET /v1/papers` and `labs_papers` take: the day's picks, or every screened paper. */
export const PapersScopeSchema = z
  .enum(["picks", "screened"])
  .default("picks")
  .describe("every screened paper, picked or not, with scope `screened`");
export type PapersScope = z.output<typeof PapersScopeSchema>;

/** `GET /v1/papers`'s query: the picks' filters and the scope they apply to. */
export const PapersRequestSchema = PapersQuerySchema.extend({ scope: PapersScopeSchema });

/** `GET /v1/papers/{arxiv_id}`'s query. */
export const PaperRequestSchema = z.object({ scope: PapersScopeSchema });

/** An item of `GET /v1/papers?scope=screened`: a pick's list item, plus `picked`, `reason`, `on_topic`. */
export const ScreenedListItemSchema = PaperListItemSchema.extend({
  date: z.string().describe("the announcement day that screened it"),
  rank: ScreenedPaperSchema.shape.rank,
  picked: ScreenedPaperSchema.shape.picked,
  reason: ScreenedPaperSchema.shape.reason,
  on_topic: ScreenedPaperSchema.shape.on_topic.unwrap().optional(),
});
export type ScreenedListItem = z.infer<typeof ScreenedListItemSchema>;

/** `GET /v1/papers?scope=screened`: as the picks' list, its items screened papers. */
export const ScreenedPapersListSchema = PapersListSchema.extend({
  applied: PapersListSchema.shape.applied.extend({ scope: z.literal("screened") }),
  total: z.int().min(0).describe("screened papers matching the filters"),
  papers: z.array(ScreenedListItemSchema),
});
export type ScreenedPapersList = z.infer<typeof ScreenedPapersListSchema>;

/** `GET /v1/papers/{arxiv_id}?scope=screened`: the paper as its day's screened file holds it. */
export const ScreenedPaperAnswerSchema = ScreenedPaperSchema.extend({
  date: z.string().describe("the announcement day that screened it"),
  pdf_url: z.string(),
  rubric_version: z.string(),
});
export type ScreenedPaperAnswer = z.infer<typeof ScreenedPaperAnswerSchema>;

/** `GET /v1/papers`'s answer: the picks' list, or with `scope=screened` the screened papers'. */
export const PapersAnswerSchema = z.union([PapersListSchema, ScreenedPapersListSchema]);

/** `GET /v1/papers/{arxiv_id}`'s answer: the pick, or with `scope=screened` the screened paper. */
export const PaperAnswerSchema = z.union([PickSchema, ScreenedPaperAnswerSchema]);

/** A screened paper as a list item of its day. */
export function screenedListItem(day: ScreenedDay, paper: ScreenedPaper): ScreenedListItem {
  return {
    arxiv_id: paper.arxiv_id,
    date: day.date,
    rank: paper.rank,
    title: paper.title,
    authors: paper.authors,
    categories: paper.categories,
    abs_url: paper.abs_url,
    pdf_url: `https://arxiv.org/pdf/${paper.arxiv_id}`,
    total: paper.scores.total,
    ...(paper.must_read === null ? {} : { must_read: paper.must_read }),
    reg_fit: paper.scores.reg_fit,
    axes: paper.scores.axes,
    scorer: paper.scores.scorer,
    rubric_version: day.rubric_version,
    picked: paper.picked,
    reason: paper.reason,
    ...(paper.on_topic === null ? {} : { on_topic: paper.on_topic }),
  };
}

/** One screened paper with its day, as `GET /v1/papers/{arxiv_id}?scope=screened` answers it. */
export function screenedPaperAnswer(day: ScreenedDay, paper: ScreenedPaper): ScreenedPaperAnswer {
  return {
    ...paper,
    date: day.date,
    pdf_url: `https://arxiv.org/pdf/${paper.arxiv_id}`,
    rubric_version: day.rubric_version,
  };
}

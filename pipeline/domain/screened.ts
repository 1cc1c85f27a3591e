import { z } from "zod";
import type { Candidate } from "./candidate.ts";
import type { RunRecord, Screened } from "./run-record.ts";
import { AXIS_IDS, type AxisId, RegFitSchema, ScoresSchema } from "./score.ts";
import { readerReason } from "./screened-reason.ts";
import { SelectionPolicySchema } from "./selection.ts";

// `public/v1/screened/{date}.json`: every candidate a day screened, for readers, in the model's order,
// with its scores (levels only: the evidence stays in the run record and in the picks), the model's
// likelihoods and, in plain words, why it was or was not picked. Made from the run record's list, so
// it can never tell a different story than the decision the run made.

/** A likelihood is published to three places: the file stays small and nothing reads finer. */
const LIKELIHOOD_PLACES = 1000;
/** The model counts a paper on topic from this on-topic likelihood up (the header's `on_topic`). */
export const ON_TOPIC_FROM = 0.5;
/**
 * The abstract is cut to its opening, about this many characters: the full abstracts of a 320-paper
 * day compress to about 190 KB on their own, over the file's 150 KB budget; the opening is what the
 * screened view shows and searches, and `abs_url` has the rest.
 */
export const SUMMARY_CHARACTERS = 320;

const Level = z.int().min(0).max(5);

/** A screened paper's rubric levels: each axis, the total and REG FIT, and the scorer that gave them. */
export const ScreenedScoresSchema = z.object({
  scorer: ScoresSchema.shape.scorer,
  axes: z.object(Object.fromEntries(AXIS_IDS.map((id) => [id, Level])) as Record<AxisId, typeof Level>),
  total: ScoresSchema.shape.total,
  reg_fit: RegFitSchema.shape.score,
});
export type ScreenedScores = z.infer<typeof ScreenedScoresSchema>;

const Likelihood = z.number().min(0).max(1);

/** One screened candidate as readers see it. */
export const ScreenedPaperSchema = z.object({
  arxiv_id: z.string(),
  rank: z.int().min(1).describe("the model's order among the day's candidates, 1 first"),
  picked: z.boolean().describe("one of the day's picks (they are the picked papers, in this order)"),
  reason: z.string().describe("why it was or was not picked, in plain words, from the run's decision"),
  title: z.string(),
  authors: z.array(z.string()),
  categories: z.array(z.string()),
  summary: z
    .string()
    .describe(`the abstract's opening, cut near ${SUMMARY_CHARACTERS} characters at a word (… marks a cut)`),
  abs_url: z.string(),
  scores: ScreenedScoresSchema,
  must_read: Likelihood.nullable().describe(
    "calibrated chance an expert calls it a must-read; null when the rubric's total ranked",
  ),
  on_topic: Likelihood.nullable().describe(
    "the model's on-topic likelihood; null when the rubric's total ranked",
  ),
});
export type ScreenedPaper = z.infer<typeof ScreenedPaperSchema>;

/** `public/v1/screened/{date}.json`. */
export const ScreenedDaySchema = z.object({
  date: z.string(),
  generated_at: z.string(),
  rubric_version: z.string(),
  ranker: z
    .object({ name: z.enum(["model", "rules"]), model_version: z.string().nullable() })
    .describe("what ordered the papers: the relevance model (and its version) or the rubric's total"),
  selection: SelectionPolicySchema,
  counts: z.object({
    screened: z.int().min(0).describe("candidates screened: every paper below"),
    on_topic: z
      .int()
      .min(0)
      .nullable()
      .describe(
        `papers the model finds on topic (likelihood >= ${ON_TOPIC_FROM}); null when the rules ranked`,
      ),
    picked: z.int().min(0),
  }),
  papers: z.array(ScreenedPaperSchema).describe("every screened candidate, in the model's order"),
});
export type ScreenedDay = z.infer<typeof ScreenedDaySchema>;

const round = (value: number | undefined): number | null =>
  value === undefined ? null : Math.round(value * LIKELIHOOD_PLACES) / LIKELIHOOD_PLACES;

/** An abstract's opening: whitespace collapsed, cut at a word near `max` characters, `…` where cut. */
export function summaryOpening(summary: string, max = SUMMARY_CHARACTERS): string {
  const text = summary.replace(/\s+/g, " ").trim();
  if (text.length <= max) return text;
  const space = text.lastIndexOf(" ", max);
  return `${text.slice(0, space > max / 2 ? space : max).replace(/[\s,;:]+$/, "")}…`;
}

/** What the screened file is made from: a run record's decisions and the texts the source gave. */
export interface ScreenedInput {
  record: Pick<RunRecord, "date" | "rubric_version" | "selection" | "ranker"> & {
    candidates: readonly Screened[];
  };
  generatedAt: string;
  /** The day's candidates by id, for the texts the record does not keep; a missing one gets none. */
  texts: ReadonlyMap<string, Pick<Candidate, "authors" | "categories" | "summary">>;
}

/**
 * The screened file of a day, from its run record: the record's order, its decisions, its reasons put
 * in a reader's words. `picked` papers are the record's kept ones, in the record's order.
 *
 * @example buildScreenedDay({ record, generatedAt, texts }).papers.filter((paper) => paper.picked)
 */
export function buildScreenedDay(input: ScreenedInput): ScreenedDay {
  const { record, texts } = input;
  let onTopic = 0;
  let picked = 0;
  const papers = record.candidates.map((entry, index): ScreenedPaper => {
    const text = texts.get(entry.id);
    const { scores, relevance } = entry;
    if (relevance !== undefined && relevance.on_topic >= ON_TOPIC_FROM) onTopic++;
    if (entry.kept) picked++;
    const axes = Object.fromEntries(AXIS_IDS.map((id) => [id, scores.axes[id].score])) as Record<
      AxisId,
      number
    >;
    return {
      arxiv_id: entry.id,
      rank: index + 1,
      picked: entry.kept,
      reason: readerReason(entry.reason, scores.focus?.level === "off-mission").text,
      title: entry.title,
      authors: text?.authors ?? [],
      categories: text?.categories ?? [],
      summary: summaryOpening(text?.summary ?? ""),
      abs_url: `https://arxiv.org/abs/${entry.id}`,
      scores: { scorer: scores.scorer, axes, total: scores.total, reg_fit: scores.reg_fit.score },
      must_read: round(relevance?.must_read),
      on_topic: round(relevance?.on_topic),
    };
  });
  const ranked = record.ranker?.name === "model" || record.candidates.some((entry) => entry.relevance);
  return {
    date: record.date,
    generated_at: input.generatedAt,
    rubric_version: record.rubric_version,
    ranker: record.ranker ?? { name: ranked ? "model" : "rules", model_version: null },
    selection: record.selection,
    counts: { screened: papers.length, on_topic: ranked ? onTopic : null, picked },
    papers,
  };
}

/** The published file's key for a day. */
export const screenedKey = (date: string): string => `v1/screened/${date}.json`;

/** Reads a screened file's bytes (a server's or a tool's loader); a reason instead when they are not one. */
export function parseScreenedDay(body: Uint8Array): ScreenedDay | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return { problem: "not valid JSON" };
  }
  const parsed = ScreenedDaySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { problem: `not a screened file (${issue?.path.join(".") || "/"}: ${issue?.message})` };
  }
  return parsed.data;
}

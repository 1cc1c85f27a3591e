import { z } from "zod";
import { normalizeArxivRef } from "./arxiv-id.ts";

/** Which rubric side a labelled paper mainly serves; `none` for off-mission papers. */
export const LABEL_GROUPS = ["substrate", "governance", "research-only", "none"] as const;

/** One expert judgement: 2 a must-read top pick, 1 on topic, 0 off mission. */
export const PaperLabelSchema = z.object({
  label: z.literal([0, 1, 2]),
  group: z.enum(LABEL_GROUPS),
  reg_fit: z.int().min(1).max(3).nullable().describe("fit to regulated settings; null for label 0"),
  why: z.string(),
});
export type PaperLabel = z.infer<typeof PaperLabelSchema>;

const ArxivKeySchema = z
  .string()
  .refine((key) => normalizeArxivRef(key) !== undefined, "not an arXiv id (expected e.g. 2401.12345)");

/**
 * A labels file (`../shared/curation/labels-*.json`): expert labels for every paper of one listing.
 * Ids are normalised like listing ids (`2401.12345v2` -> `2401.12345`), so the two always match; a key
 * that is not an arXiv id, or two keys naming the same paper, make the file invalid.
 */
export const LabelsFileSchema = z.object({
  listing: z.string().min(1).describe("the listing's file name, looked up beside the labels file"),
  labeled_by: z.string().optional(),
  labels: z.record(ArxivKeySchema, PaperLabelSchema).transform((labels, context) => {
    const normalised: Record<string, PaperLabel> = {};
    const firstKey = new Map<string, string>();
    for (const [key, label] of Object.entries(labels)) {
      const id = normalizeArxivRef(key) as string;
      const earlier = firstKey.get(id);
      if (earlier === undefined) {
        firstKey.set(id, key);
        normalised[id] = label;
      } else {
        const message = `labels arXiv ${id} again (already labelled as \`${earlier}\`)`;
        context.issues.push({ code: "custom", message, path: [key], input: key });
      }
    }
    return normalised;
  }),
});
export type LabelsFile = z.output<typeof LabelsFileSchema>;

const MAX_PROBLEMS = 5;

/**
 * The labels file, or what is wrong with it in a few lines (`labels.2603.09832.label: ...`).
 * @example readLabels(JSON.parse(text)) // { labels } or { problem: "labels.x: not an arXiv id" }
 */
export function readLabels(json: unknown): { labels: LabelsFile } | { problem: string } {
  const parsed = LabelsFileSchema.safeParse(json);
  if (parsed.success) return { labels: parsed.data };
  const issues = parsed.error.issues;
  const lines = issues.slice(0, MAX_PROBLEMS).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "the document";
    // A bad record key says only "Invalid key in record"; the reason is in the key's own issue.
    const message =
      issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    return `${where}: ${message}`;
  });
  if (issues.length > MAX_PROBLEMS) lines.push(`and ${issues.length - MAX_PROBLEMS} more problems`);
  return { problem: lines.join("; ") };
}

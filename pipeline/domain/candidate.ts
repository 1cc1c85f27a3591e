import { z } from "zod";

/** A paper screened on one announcement day, as every source hands it to the scorer. */
export const CandidateSchema = z.object({
  id: z.string().describe("arXiv id without version, e.g. 2401.12345 or cs/0112017"),
  title: z.string().min(1),
  summary: z.string(),
  authors: z.array(z.string()),
  categories: z.array(z.string()),
  comment: z.string().optional(),
});
export type Candidate = z.infer<typeof CandidateSchema>;

/** A row a source could not use, kept for the run record instead of stopping the run. */
export const SkippedRowSchema = z.object({
  where: z.string().describe("file and line, or the source's own position"),
  id: z.string().optional(),
  reason: z.string(),
});
export type SkippedRow = z.infer<typeof SkippedRowSchema>;

/** What a source yields for one day. An empty list is a valid day (weekends, holidays). */
export interface CandidateBatch {
  source: string;
  sample: boolean;
  candidates: Candidate[];
  skipped: SkippedRow[];
  /** Rows whose id was seen before on the same day (cross-lists): counted once. */
  duplicates: number;
  /** What a live source did to get the day (requests, ignored entries), copied into the run record. */
  notes?: string[];
}

import { z } from "zod";
import { type FirmDay, FirmPickSchema, WatchHitSchema } from "./bench-scoring.ts";
import { CitationChangeSchema, citationChanges, type TrackingDay } from "./bench-tracking.ts";

// The weekly note as data; bench-note-render.ts writes it as Markdown and HTML.

export const RubricChangeSchema = z.object({
  date: z.string().describe("the first published day scored under the new version"),
  from: z.string(),
  to: z.string(),
});

export const BenchNoteSchema = z.object({
  firm: z.string(),
  week: z.string().describe("ISO week, e.g. 2026-W47"),
  first_day: z.string(),
  last_day: z.string(),
  built_at: z.string(),
  published_days: z.array(z.string()).describe("days of the week with a firm view; empty: the note says so"),
  firm_rubric_versions: z
    .array(z.int().min(0))
    .describe("the firm rubric versions that scored the week's days"),
  picks: z.array(FirmPickSchema).describe("the week's firm picks, by day then rank, each with its evidence"),
  citations: z.array(CitationChangeSchema).describe("every watched paper's citation change over the week"),
  hits: z.array(WatchHitSchema).describe("the week's candidates by a watched author or on a watched term"),
  public_rubric_changes: z.array(RubricChangeSchema),
});
export type BenchNote = z.infer<typeof BenchNoteSchema>;

/** `GET /v1/bench/notes`: the weeks with a built note, newest first. */
export const BenchNoteListSchema = z.object({
  firm: z.string(),
  notes: z.array(z.object({ week: z.string(), built_at: z.string(), picks: z.int().min(0) })),
});
export type BenchNoteList = z.infer<typeof BenchNoteListSchema>;

/**
 * A firm's note for one ISO week from its stored day views and watched-paper figures. `before` is the
 * last firm day before the week, if any, so a public rubric change on the week's first day shows.
 */
export function buildNote(input: {
  firm: string;
  week: string;
  days: readonly string[];
  views: readonly FirmDay[];
  before: FirmDay | null;
  tracking: readonly TrackingDay[];
  watchedPapers: readonly string[];
  builtAt: string;
}): BenchNote {
  const first = input.days[0] as string;
  const last = input.days.at(-1) as string;
  const views = input.views
    .filter((view) => view.date >= first && view.date <= last)
    .sort((a, b) => (a.date < b.date ? -1 : 1));
  const changes: BenchNote["public_rubric_changes"] = [];
  let previous = input.before?.public_rubric_version ?? null;
  for (const view of views) {
    if (previous !== null && view.public_rubric_version !== previous) {
      changes.push({ date: view.date, from: previous, to: view.public_rubric_version });
    }
    previous = view.public_rubric_version;
  }
  return {
    firm: input.firm,
    week: input.week,
    first_day: first,
    last_day: last,
    built_at: input.builtAt,
    published_days: views.map((view) => view.date),
    firm_rubric_versions: [...new Set(views.map((view) => view.firm_rubric_version))],
    picks: views.flatMap((view) => view.picks),
    citations: citationChanges(input.watchedPapers, input.tracking, first, last),
    hits: views.flatMap((view) => view.hits),
    public_rubric_changes: changes,
  };
}

import { z } from "zod";
import type { FirmRubric } from "./bench-rubric.ts";
import type { Watchlist } from "./bench-watchlist.ts";
import { excerpt } from "./excerpt.ts";
import type { Screened } from "./run-record.ts";
import { AXIS_IDS, AxisIdSchema, EvidenceSchema } from "./score.ts";
import { EVIDENCE_MAX_CHARS } from "./signal-evidence.ts";
import { compileTerms, type Field, findTerms, type Matcher } from "./text-signals.ts";

// A firm's view of one published day: the day's screened candidates (the run record keeps every one,
// with the public scorer's axis scores and their evidence) re-weighted by the firm's rubric, plus the
// candidates by a watched author or on a watched term. Nothing is scored twice: the public axis
// scores are taken as they are, so a firm pick's evidence is the public evidence that carried weight.

/** The words of a candidate the run record does not keep; absent, only the title is searched. */
export interface CandidateText {
  summary: string;
  authors: readonly string[];
  comment?: string | undefined;
}

export const FirmAxisSchema = z.object({
  axis: AxisIdSchema,
  score: z.int().min(0).max(5).describe("the public scorer's level"),
  weight: z.number(),
  points: z.number().describe("weight x score"),
  evidence: z.array(EvidenceSchema),
});

export const FiredFirmSignalSchema = z.object({
  axis: AxisIdSchema,
  term: z.string(),
  weight: z.number(),
  text: z.string().describe("the sentence the term was found in"),
});

export const FirmPickSchema = z.object({
  arxiv_id: z.string(),
  title: z.string(),
  date: z.string(),
  rank: z.int().min(1),
  firm_total: z.number().describe("sum of weight x axis score, plus the points of fired firm signals"),
  public_total: z.int(),
  public_kept: z.boolean().describe("whether the paper is also one of the day's public picks"),
  reg_fit: z.int().min(1).max(3),
  axes: z.array(FirmAxisSchema).describe("axes that gave points, most points first, with their evidence"),
  signals: z.array(FiredFirmSignalSchema),
  rubric_version: z.string().describe("the public rubric version whose axis scores were weighted"),
  firm_rubric_version: z.int().min(0).describe("the firm rubric version that weighted them; 0: the default"),
});
export type FirmPick = z.infer<typeof FirmPickSchema>;

export const WatchHitSchema = z.object({
  arxiv_id: z.string(),
  title: z.string(),
  date: z.string(),
  authors: z.array(z.string()).describe("watched authors among the paper's authors"),
  terms: z
    .array(z.object({ term: z.string(), text: z.string() }))
    .describe("watched terms and where they were found"),
});
export type WatchHit = z.infer<typeof WatchHitSchema>;

export const FirmDaySchema = z.object({
  date: z.string(),
  screened: z.int().min(0),
  public_rubric_version: z.string(),
  firm_rubric_version: z.int().min(0),
  picks: z.array(FirmPickSchema),
  hits: z.array(WatchHitSchema),
});
export type FirmDay = z.infer<typeof FirmDaySchema>;

const SIGNAL_FIELDS: readonly Field[] = ["title", "summary", "comment"];

function fieldsOf(entry: Screened, text: CandidateText | undefined): Array<readonly [Field, string]> {
  const values: Record<Field, string> = {
    title: entry.title,
    summary: text?.summary ?? "",
    comment: text?.comment ?? "",
  };
  return SIGNAL_FIELDS.map((field) => [field, values[field]] as const);
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** One firm's settings for a day. */
export interface FirmSetup {
  rubric: FirmRubric;
  watchlist: Watchlist;
}

/**
 * A day seen through a firm's rubric and watchlist. Picks are the candidates at or above the firm's
 * thresholds, most firm points first (then public total, then id), at most `max_picks`.
 */
export function firmDay(input: {
  date: string;
  publicRubricVersion: string;
  screened: readonly Screened[];
  texts: ReadonlyMap<string, CandidateText>;
  rubric: FirmRubric;
  watchlist: Watchlist;
}): FirmDay {
  return firmDays({ ...input, firms: [{ rubric: input.rubric, watchlist: input.watchlist }] })[0] as FirmDay;
}

/**
 * Every firm's view of one day. All firms' signal and watch terms go into one matcher, so each
 * candidate's text is tokenized and searched once whatever the number of firms; firm `i`'s signals
 * and terms own a range of its keys.
 */
export function firmDays(input: {
  date: string;
  publicRubricVersion: string;
  screened: readonly Screened[];
  texts: ReadonlyMap<string, CandidateText>;
  firms: readonly FirmSetup[];
}): FirmDay[] {
  const { date } = input;
  const bases: number[] = [];
  const terms: Array<{ term: string; key: number }> = [];
  let next = 0;
  for (const { rubric, watchlist } of input.firms) {
    bases.push(next);
    for (const signal of rubric.signals) {
      for (const term of signal.terms) terms.push({ term, key: next });
      next++;
    }
    for (const term of watchlist.terms) terms.push({ term, key: next++ });
  }
  const matcher: Matcher | null = terms.length === 0 ? null : compileTerms(terms, next);
  // No key marks a keyword list: the public scorer's guard against stuffed keyword lists counts every
  // key's variety, and with many firms' terms in one matcher it would drop real hits.
  const noLists = new Uint8Array(next);
  const firms = input.firms.map((setup, i) => ({
    ...setup,
    base: bases[i] as number,
    authors: new Set(setup.watchlist.authors.map((name) => name.toLowerCase())),
    scored: [] as Array<Omit<FirmPick, "rank">>,
    hits: [] as WatchHit[],
  }));
  for (const entry of input.screened) {
    const text = input.texts.get(entry.id);
    const found = matcher ? findTerms(matcher, fieldsOf(entry, text), noLists).hits : [];
    const names = (text?.authors ?? []).map(
      (name) => [name, name.trim().replace(/\s+/g, " ").toLowerCase()] as const,
    );
    for (const firm of firms) {
      const { rubric, watchlist, base } = firm;
      const axes = AXIS_IDS.map((axis) => {
        const { score, evidence } = entry.scores.axes[axis];
        const weight = rubric.weights[axis] ?? 1;
        return { axis, score, weight, points: round(weight * score), evidence };
      })
        .filter((axis) => axis.points > 0)
        .sort((a, b) => b.points - a.points || a.axis.localeCompare(b.axis));
      const fired = rubric.signals.flatMap((signal, s) => {
        const hit = found[base + s];
        if (!hit) return [];
        const term = hit.text.slice(hit.start, hit.end);
        return [{ axis: signal.axis, term, weight: signal.weight, text: excerpt(hit, EVIDENCE_MAX_CHARS) }];
      });
      const firmTotal = round(
        axes.reduce((sum, axis) => sum + axis.points, 0) +
          fired.reduce((sum, signal) => sum + signal.weight, 0),
      );
      firm.scored.push({
        arxiv_id: entry.id,
        title: entry.title,
        date,
        firm_total: firmTotal,
        public_total: entry.scores.total,
        public_kept: entry.kept,
        reg_fit: entry.scores.reg_fit.score,
        axes,
        signals: fired,
        rubric_version: entry.scores.rubric_version,
        firm_rubric_version: rubric.version,
      });
      const authors = names.filter(([, key]) => firm.authors.has(key)).map(([name]) => name);
      const termBase = base + rubric.signals.length;
      const termHits = watchlist.terms.flatMap((term, t) => {
        const hit = found[termBase + t];
        return hit ? [{ term, text: excerpt(hit, EVIDENCE_MAX_CHARS) }] : [];
      });
      if (authors.length > 0 || termHits.length > 0) {
        firm.hits.push({ arxiv_id: entry.id, title: entry.title, date, authors, terms: termHits });
      }
    }
  }
  return firms.map(({ rubric, scored, hits }) => ({
    date,
    screened: input.screened.length,
    public_rubric_version: input.publicRubricVersion,
    firm_rubric_version: rubric.version,
    picks: scored
      .filter((pick) => pick.firm_total >= rubric.min_total && pick.reg_fit >= rubric.min_reg_fit)
      .sort(
        (a, b) =>
          b.firm_total - a.firm_total ||
          b.public_total - a.public_total ||
          (a.arxiv_id < b.arxiv_id ? -1 : a.arxiv_id > b.arxiv_id ? 1 : 0),
      )
      .slice(0, rubric.max_picks)
      .map((pick, i) => ({ ...pick, rank: i + 1 })),
    hits,
  }));
}

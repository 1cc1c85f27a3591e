// What a judge's quote is worth. The text the judge reads is a stranger's (an abstract, a submitted
// page), so a quote counts only when it is really in that text and shows a rubric signal of the axis it
// is cited for; the model's own words (its signal names, its rationale) are never published.

import type { Candidate } from "../domain/candidate.ts";
import type { Rubric } from "../domain/rubric.ts";
import { AXIS_IDS, type AxisId } from "../domain/score.ts";
import { type CompiledRubric, compileRubric } from "../domain/scorer.ts";
import { findTerms } from "../domain/text-signals.ts";
import { tokenWords } from "../domain/tokens.ts";

/** Shorter quotes ("agents", "we propose") occur in almost any text and show nothing. */
export const MIN_QUOTE_WORDS = 4;

/** The rubric's signals, per axis and for REG FIT, as the quote checks use them. */
export interface EvidenceRubric {
  compiled: CompiledRubric;
  /** Matcher key -> signal id, for the keys of each axis and of REG FIT's criteria. */
  axes: ReadonlyMap<AxisId, ReadonlyMap<number, string>>;
  regFit: ReadonlyMap<number, string>;
  regFitLevels: readonly string[];
}

/** Prepares a rubric for checking quotes; build once per run. */
export function evidenceRubric(rubric: Rubric): EvidenceRubric {
  const compiled = compileRubric(rubric);
  const axes = new Map<AxisId, Map<number, string>>();
  for (const axis of compiled.axes) {
    // A quote showing a negative signal ("this survey") supports no higher score.
    const positive = axis.signals.filter((signal) => signal.weight > 0);
    axes.set(axis.id, new Map(positive.map((signal) => [signal.key, signal.id])));
  }
  const regFit = new Map<number, string>();
  for (const criterion of compiled.regFit.criteria) {
    for (const signal of criterion.signals) if (signal.weight > 0) regFit.set(signal.key, signal.id);
  }
  for (const id of AXIS_IDS) if (!axes.has(id)) axes.set(id, new Map());
  return { compiled, axes, regFit, regFitLevels: rubric.reg_fit.levels.map((level) => level.name) };
}

const collapse = (text: string) => text.replace(/\s+/g, " ").trim();
// Models wrap quotes in quotation marks or ellipses; those are not the paper's words.
const unwrap = (quote: string) => collapse(quote).replace(/^["'“”‘’«»…. ]+|["'“”‘’«»… ]+$/g, "");

/**
 * Finds quotes in a candidate's title, abstract or comment, whitespace and case aside, and answers
 * with the text's own words (so what is published is the source, never the model's copy), or
 * undefined when the quote is not there or too short to show anything.
 */
export function createQuoteFinder(candidate: Candidate): (quote: string) => string | undefined {
  const fields = [candidate.title, candidate.summary, candidate.comment ?? ""].map((text) => {
    const original = collapse(text);
    return { original, lower: original.toLowerCase() };
  });
  return (quote) => {
    const wanted = unwrap(quote);
    if (tokenWords(wanted).length < MIN_QUOTE_WORDS) return undefined;
    const lower = wanted.toLowerCase();
    for (const field of fields) {
      const at = field.lower.indexOf(lower);
      if (at < 0) continue;
      // Lower-casing rarely changes a length (İ); then offsets differ and the quote is given as found.
      return field.lower.length === field.original.length
        ? field.original.slice(at, at + lower.length)
        : wanted;
    }
    return undefined;
  };
}

/** The first of `signals` that a quote shows, as the rules scorer would read it, or undefined. */
export function signalShown(
  rubric: EvidenceRubric,
  signals: ReadonlyMap<number, string>,
  quote: string,
): string | undefined {
  const { hits } = findTerms(rubric.compiled.matcher, [["summary", quote]], rubric.compiled.listKeys);
  for (const [key, id] of signals) if (hits[key]) return id;
  return undefined;
}

// The deterministic "rules" scorer: rubric signals found in the title, abstract and comment become axis
// levels and REG FIT, each with the sentences that produced it. Same input, same output, anywhere.

import type { Candidate } from "./candidate.ts";
import { createExcerpter } from "./excerpt.ts";
import { type CompiledFocus, compileFocus, decideFocus } from "./focus.ts";
import { type CompiledRegFit, compileRegFit, decideRegFit } from "./reg-fit.ts";
import type { Rubric } from "./rubric.ts";
import { AXIS_GROUP, type AxisId, type AxisScore, type Scores, totals } from "./score.ts";
import {
  type CompiledSignal,
  collectSignals,
  createSignalRegistry,
  type Emphasis,
  EVIDENCE_MAX_CHARS,
} from "./signal-evidence.ts";
import { compileTerms, type Field, findTerms, type Matcher } from "./text-signals.ts";

interface CompiledAxis {
  id: AxisId;
  thresholds: readonly number[];
  /** Whether the length factor and the focus factor apply, decided once per rubric rather than per paper. */
  lengthScaled: boolean;
  focusScaled: boolean;
  signals: readonly CompiledSignal[];
}

/** A rubric prepared for scoring many candidates: build once with `compileRubric`. */
export interface CompiledRubric {
  version: string;
  matcher: Matcher;
  /** The axis signals' keys: how many distinct ones a stretch of text fires tells a keyword list. */
  listKeys: Uint8Array;
  axes: readonly CompiledAxis[];
  emphasis: Emphasis;
  lengthNorm: Rubric["scoring"]["length_norm"];
  regFit: CompiledRegFit;
  focus: CompiledFocus | undefined;
}

/** Prepares a validated rubric for `scoreWith`: one matcher over every signal's terms. */
export function compileRubric(rubric: Rubric): CompiledRubric {
  const registry = createSignalRegistry();
  const axes = rubric.axes.map((axis) => ({
    id: axis.id,
    thresholds: axis.level_thresholds ?? rubric.scoring.level_thresholds,
    lengthScaled: rubric.scoring.length_norm.groups.includes(AXIS_GROUP[axis.id]),
    focusScaled: rubric.focus?.groups.includes(AXIS_GROUP[axis.id]) ?? false,
    signals: registry.add(axis.signals),
  }));
  const regFit = compileRegFit(rubric.reg_fit, registry);
  const focus = rubric.focus && compileFocus(rubric.focus, registry);
  const matcher = compileTerms(registry.terms(), registry.size());
  // REG FIT and focus signals mostly repeat axis words, so counting them would weigh one word twice.
  const listKeys = new Uint8Array(registry.size());
  for (const axis of axes) for (const signal of axis.signals) listKeys[signal.key] = 1;
  return {
    version: rubric.version,
    matcher,
    listKeys,
    axes,
    emphasis: rubric.scoring.emphasis,
    lengthNorm: rubric.scoring.length_norm,
    regFit,
    focus,
  };
}

/**
 * What a text's points are multiplied by: long abstracts mention more topics in passing than short ones,
 * so points are scaled toward a reference length, like the document-length normalisation of BM25.
 */
export function lengthFactor(tokenCount: number, norm: Rubric["scoring"]["length_norm"]): number {
  if (tokenCount <= 0) return 1;
  const factor = Math.min(norm.max_factor, (norm.reference_tokens / tokenCount) ** norm.exponent);
  // `**` may differ in the last bit between platforms; three decimals make scores identical everywhere.
  return Math.round(factor * 1000) / 1000;
}

/** The level 0..5 that `points` reach: how many thresholds they meet. */
export function levelFor(points: number, thresholds: readonly number[]): number {
  let level = 0;
  for (const threshold of thresholds) if (points >= threshold) level++;
  return Math.min(level, 5);
}

/** Scores one candidate with a compiled rubric (use this in loops). */
export function scoreWith(compiled: CompiledRubric, candidate: Candidate): Scores {
  const fields: Array<readonly [Field, string]> = [
    ["title", candidate.title],
    ["summary", candidate.summary],
    ["comment", candidate.comment ?? ""],
  ];
  const { hits, tokenCount } = findTerms(compiled.matcher, fields, compiled.listKeys);
  const factor = lengthFactor(tokenCount, compiled.lengthNorm);
  const quote = createExcerpter(EVIDENCE_MAX_CHARS);
  const focus =
    compiled.focus && decideFocus(compiled.focus, hits, quote, compiled.emphasis, candidate.categories);
  // The rubric schema keeps axes in A1..A9 order, so insertion order is the published key order.
  const axes = {} as Record<AxisId, AxisScore>;
  for (const axis of compiled.axes) {
    const { points, evidence } = collectSignals(axis.signals, hits, quote, compiled.emphasis);
    let scaled = axis.lengthScaled ? points * factor : points;
    if (focus && axis.focusScaled) scaled *= focus.factor;
    axes[axis.id] = { score: levelFor(scaled, axis.thresholds), evidence };
  }
  return {
    scorer: "rules",
    rubric_version: compiled.version,
    axes,
    ...totals(axes),
    reg_fit: decideRegFit(compiled.regFit, hits, quote),
    ...(focus ? { focus } : {}),
  };
}

const compiledCache = new WeakMap<Rubric, CompiledRubric>();

/** Scores one candidate on the rubric's nine axes and REG FIT, with evidence; deterministic and offline. */
export function scoreCandidate(candidate: Candidate, rubric: Rubric): Scores {
  let compiled = compiledCache.get(rubric);
  if (!compiled) {
    compiled = compileRubric(rubric);
    compiledCache.set(rubric, compiled);
  }
  return scoreWith(compiled, candidate);
}

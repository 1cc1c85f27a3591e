// Rubric signals as the scorer uses them: each gets a matcher key, and fired signals become evidence.

import type { Signal } from "./rubric.ts";
import type { Evidence } from "./score.ts";
import type { Hit, TermSource } from "./text-signals.ts";

/** Evidence sentences longer than this are cut around the matched words. */
export const EVIDENCE_MAX_CHARS = 240;

/** A rubric signal with the key its terms report in the matcher. */
export interface CompiledSignal {
  key: number;
  id: string;
  label: string;
  weight: number;
}

/** Hands out matcher keys to signals and gathers their terms for `compileTerms`. */
export interface SignalRegistry {
  add(signals: readonly Signal[]): CompiledSignal[];
  terms(): TermSource[];
  size(): number;
}

/** A fresh registry; keys run from 0 in the order signals are added. */
export function createSignalRegistry(): SignalRegistry {
  const terms: TermSource[] = [];
  let next = 0;
  return {
    add: (signals) =>
      signals.map((signal) => {
        const key = next++;
        for (const term of signal.terms) terms.push({ term, key });
        return { key, id: signal.id, label: signal.label, weight: signal.weight };
      }),
    terms: () => terms,
    size: () => next,
  };
}

/** Extra points for a positive signal that is central to the text rather than mentioned in passing. */
export interface Emphasis {
  title_points: number;
  repeat_min_count: number;
  repeat_points: number;
}

export const NO_EMPHASIS: Emphasis = { title_points: 0, repeat_min_count: 1, repeat_points: 0 };

/** The points one fired signal contributes: its weight, plus emphasis when positive. */
export function signalPoints(signal: CompiledSignal, hit: Hit, emphasis: Emphasis): number {
  if (signal.weight < 0) return signal.weight;
  const inTitle = hit.field === "title" ? emphasis.title_points : 0;
  const repeated = hit.count >= emphasis.repeat_min_count ? emphasis.repeat_points : 0;
  return signal.weight + inTitle + repeated;
}

/** The signals that fired, in rubric order, their evidence, and the sum of their points. */
export function collectSignals(
  signals: readonly CompiledSignal[],
  hits: ReadonlyArray<Hit | undefined>,
  quote: (hit: Hit) => string,
  emphasis: Emphasis = NO_EMPHASIS,
): { points: number; fired: CompiledSignal[]; evidence: Evidence[] } {
  let points = 0;
  const fired: CompiledSignal[] = [];
  const evidence: Evidence[] = [];
  for (const signal of signals) {
    const hit = hits[signal.key];
    if (!hit) continue;
    points += signalPoints(signal, hit, emphasis);
    fired.push(signal);
    evidence.push({ signal: signal.id, text: quote(hit) });
  }
  return { points, fired, evidence };
}

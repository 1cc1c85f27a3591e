// Mission focus: is the paper about LLM or agent systems, or about governing them, or are the rubric's
// topic words only context (a hallucination benchmark for video models, safety in a driving paper)?
// Substrate and governance signals count fully only on a paper in focus; elsewhere they are scaled down.

import type { FocusRubric } from "./rubric.ts";
import type { Evidence, Focus } from "./score.ts";
import {
  type CompiledSignal,
  collectSignals,
  type Emphasis,
  type SignalRegistry,
} from "./signal-evidence.ts";
import type { Hit } from "./text-signals.ts";

/** The focus part of a compiled rubric. */
export interface CompiledFocus {
  signals: readonly CompiledSignal[];
  categories: ReadonlyMap<string, number>;
  /** Highest `min_points` first, so the first level reached is the one that applies. */
  levels: FocusRubric["levels"];
}

/** Registers the focus signals in the shared registry so one matcher finds every term. */
export function compileFocus(focus: FocusRubric, registry: SignalRegistry): CompiledFocus {
  return {
    signals: registry.add(focus.signals),
    categories: new Map(Object.entries(focus.primary_category)),
    levels: [...focus.levels].sort((a, b) => b.min_points - a.min_points),
  };
}

/** Focus points and level for one candidate: its focus signals, plus the prior of its primary category. */
export function decideFocus(
  focus: CompiledFocus,
  hits: ReadonlyArray<Hit | undefined>,
  quote: (hit: Hit) => string,
  emphasis: Emphasis,
  categories: readonly string[],
): Focus {
  const found = collectSignals(focus.signals, hits, quote, emphasis);
  const evidence: Evidence[] = [...found.evidence];
  let points = found.points;
  const primary = categories[0];
  const prior = primary === undefined ? undefined : focus.categories.get(primary);
  if (primary !== undefined && prior !== undefined) {
    points += prior;
    evidence.push({ signal: "FOCUS.primary-category", text: `${primary} (${prior > 0 ? "+" : ""}${prior})` });
  }
  const level = focus.levels.find((candidate) => points >= candidate.min_points) ?? focus.levels.at(-1);
  return { level: level?.name ?? "", points, factor: level?.factor ?? 1, evidence };
}

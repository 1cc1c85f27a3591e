// REG FIT 1..3: would the work pass a model-risk review (SR 11-7) or a DPIA (GDPR Art. 35) as it stands.
// Criteria are shown by their own rubric signals; the decision rule and remediations come from the rubric.

import type { RegFitRubric } from "./rubric.ts";
import type { Evidence, RegFit } from "./score.ts";
import { type CompiledSignal, collectSignals, type SignalRegistry } from "./signal-evidence.ts";
import type { Hit } from "./text-signals.ts";

interface CompiledCriterion {
  id: string;
  name: string;
  required: "always" | "when-personal-data";
  minPoints: number;
  remediation: string;
  signals: readonly CompiledSignal[];
}

/** The REG FIT part of a compiled rubric. */
export interface CompiledRegFit {
  levelNames: readonly string[];
  blocking: ReadonlySet<string>;
  maxMissingFor2: number;
  criteria: readonly CompiledCriterion[];
  personalData: readonly CompiledSignal[];
}

/** Registers REG FIT's signals in the shared registry so one matcher finds every term. */
export function compileRegFit(regFit: RegFitRubric, registry: SignalRegistry): CompiledRegFit {
  const criteria = regFit.criteria.map((criterion) => ({
    id: criterion.id,
    name: criterion.name,
    required: criterion.required,
    minPoints: criterion.min_points,
    remediation: criterion.remediation,
    signals: registry.add(criterion.signals),
  }));
  return {
    levelNames: regFit.levels.map((level) => level.name),
    blocking: new Set(regFit.decision.blocking),
    maxMissingFor2: regFit.decision.max_missing_for_2,
    criteria,
    personalData: registry.add(regFit.personal_data.signals),
  };
}

function labels(signals: readonly CompiledSignal[]): string {
  return signals.map((signal) => signal.label).join(", ");
}

// Parts carry commas of their own, so three or more are separated by semicolons.
function joinAnd(parts: readonly string[]): string {
  if (parts.length <= 2) return parts.join(" and ");
  return `${parts.slice(0, -1).join("; ")}; and ${parts[parts.length - 1]}`;
}

/** Decides REG FIT from the matcher's hits, with a rationale naming what is shown and what is missing. */
export function decideRegFit(
  regFit: CompiledRegFit,
  hits: ReadonlyArray<Hit | undefined>,
  quote: (hit: Hit) => string,
): RegFit {
  const evidence: Evidence[] = [];
  const personal = collectSignals(regFit.personalData, hits, quote);
  const personalData = personal.fired.length > 0;
  const shown: string[] = [];
  const missing: string[] = [];
  let blocked = false;
  for (const criterion of regFit.criteria) {
    const found = collectSignals(criterion.signals, hits, quote);
    evidence.push(...found.evidence);
    const isRequired = criterion.required === "always" || personalData;
    const isShown = found.points >= criterion.minPoints;
    if (isShown) {
      shown.push(`${criterion.name} (${labels(found.fired)})`);
    } else if (isRequired) {
      const scope =
        criterion.required === "when-personal-data" ? ` for the ${labels(personal.fired)} it processes` : "";
      missing.push(`${criterion.name}${scope}: ${criterion.remediation}`);
      if (regFit.blocking.has(criterion.id)) blocked = true;
    }
  }
  evidence.push(...personal.evidence);
  const score = blocked || missing.length > regFit.maxMissingFor2 ? 1 : missing.length === 0 ? 3 : 2;
  const head = `REG FIT ${score}, ${regFit.levelNames[score - 1] ?? ""}.`;
  const shows = shown.length > 0 ? ` Shows ${joinAnd(shown)}.` : " Shows none of the criteria.";
  const lacks = missing.length > 0 ? ` Missing ${joinAnd(missing)}.` : "";
  const scope = personalData ? "" : " No personal data detected, so no DPIA is triggered.";
  return { score, rationale: `${head}${shows}${lacks}${scope}`, evidence };
}
